import { runInNewContext } from 'node:vm';
import { errorMessage, errorText } from './error-text';

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
