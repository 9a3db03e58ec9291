import { AbortScope, LoopAbortedError } from './abort-scope';

const never = () => new Promise<never>(() => undefined);

describe(AbortScope.name, () => {
  it('should abort as cancelled when the parent signal aborts', async () => {
    const parent = new AbortController();
    const sut = new AbortScope(parent.signal, undefined);
    const pending = sut.race(never());
    parent.abort();
    await expect(pending).rejects.toEqual(new LoopAbortedError('cancelled'));
    expect(sut.cause).toBe('cancelled');
    expect(sut.signal.aborted).toBe(true);
    sut.dispose();
  });

  it('should start aborted when the parent already is', () => {
    const parent = new AbortController();
    parent.abort();
    const sut = new AbortScope(parent.signal, 1000);
    expect(() => sut.throwIfAborted()).toThrow(LoopAbortedError);
    sut.dispose();
  });

  it('should abort as timeout when the time limit passes', async () => {
    const sut = new AbortScope(undefined, 1);
    await expect(sut.race(never())).rejects.toMatchObject({ abortCause: 'timeout' });
    expect(sut.cause).toBe('timeout');
    sut.dispose();
  });

  it('should settle like the promise while not aborted', async () => {
    const sut = new AbortScope(undefined, undefined);
    await expect(sut.race(Promise.resolve(7))).resolves.toBe(7);
    await expect(sut.race(Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(sut.cause).toBeNull();
    sut.dispose();
  });

  it('should keep the first cause', () => {
    const parent = new AbortController();
    parent.abort();
    const sut = new AbortScope(parent.signal, 0);
    expect(sut.cause).toBe('cancelled');
    sut.dispose();
  });
});
