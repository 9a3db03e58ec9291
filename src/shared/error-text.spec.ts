import { runInNewContext } from 'node:vm';
import { causeChainMessage, errorMessage, errorText } from './error-text';

describe(errorText.name, () => {
  it('should read the name and message of an error', () => {
    expect(errorText(new TypeError('bad'))).toEqual({ name: 'TypeError', message: 'bad' });
  });

  it('should read an error from another realm', () => {
    const foreign: unknown = runInNewContext('new RangeError("far")');
    expect(foreign instanceof Error).toBe(false);
    expect(errorText(foreign)).toEqual({ name: 'RangeError', message: 'far' });
  });

  it('should turn anything else into text', () => {
    expect(errorText('plain')).toEqual({ name: 'Error', message: 'plain' });
    expect(errorText(42)).toEqual({ name: 'Error', message: '42' });
  });
});

describe(errorMessage.name, () => {
  it('should give the message of an error, or the thrown value as text', () => {
    expect(errorMessage(new Error('boom'))).toBe('boom');
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage(undefined)).toBe('undefined');
    expect(errorMessage({ code: 1 })).toBe('[object Object]');
  });

  it('should never be empty or useless when descriptive', () => {
    expect(errorMessage(new TypeError(''), { descriptive: true })).toBe('TypeError');
    expect(errorMessage({ code: 1 }, { descriptive: true })).toBe('{"code":1}');
    expect(errorMessage('plain', { descriptive: true })).toBe('plain');
    expect(errorMessage(undefined, { descriptive: true })).toBe('undefined');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(errorMessage(cyclic, { descriptive: true })).toBe('[object Object]');
  });
});

describe(causeChainMessage.name, () => {
  it('should join the messages of the causes, outermost first, without their closing periods', () => {
    const root = new Error('getaddrinfo ENOTFOUND api.example.com');
    const error = new Error('Connection error.', { cause: new TypeError('fetch failed', { cause: root }) });
    expect(causeChainMessage(error)).toBe('Connection error: fetch failed: getaddrinfo ENOTFOUND api.example.com');
  });

  it('should read causes from another realm and the first error of a message-less AggregateError', () => {
    const foreign = runInNewContext('new Error("connect ECONNREFUSED ::1:11434")') as unknown;
    const aggregate = new AggregateError([foreign, new Error('connect ECONNREFUSED 127.0.0.1:11434')], '');
    const error = new TypeError('fetch failed', { cause: aggregate });
    expect(causeChainMessage(error)).toBe('fetch failed: connect ECONNREFUSED ::1:11434');
  });

  it('should not repeat a message and should give the thrown value when it has none', () => {
    expect(causeChainMessage(new Error('lost', { cause: new Error('lost') }))).toBe('lost');
    expect(causeChainMessage('plain')).toBe('plain');
  });
});
