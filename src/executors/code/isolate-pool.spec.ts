import { IsolatePool, PoolClosedError } from './isolate-pool';

// Jest's resolver cannot load the native addon (jest.config.js lacks 'node' in moduleFileExtensions).

describe(IsolatePool.name, () => {
  let sut: IsolatePool;

  beforeEach(() => {
    sut = new IsolatePool({ maxConcurrent: 2, maxIdlePerSize: 1, maxCallsPerIsolate: 3 });
  });

  afterEach(() => sut.close());

  it('should hand out a released isolate again for the same memory size', async () => {
    const first = await sut.acquire(16);
    sut.release(first, true);
    const second = await sut.acquire(16);
    expect(second.isolate).toBe(first.isolate);
    sut.release(second, true);
  });

  it('should not mix memory sizes', async () => {
    const small = await sut.acquire(16);
    sut.release(small, true);
    const large = await sut.acquire(32);
    expect(large.isolate).not.toBe(small.isolate);
    sut.release(large, true);
  });

  it('should dispose an isolate released as not reusable', async () => {
    const lease = await sut.acquire(16);
    sut.release(lease, false);
    expect(lease.isolate.isDisposed).toBe(true);
    expect(sut.idleCount).toBe(0);
  });

  it('should retire an isolate after its maximum number of calls', async () => {
    const lease = await sut.acquire(16);
    for (let call = 1; call < 3; call++) {
      sut.release(lease, true);
      expect(await sut.acquire(16)).toBe(lease);
    }
    sut.release(lease, true);
    expect(lease.isolate.isDisposed).toBe(true);
  });

  it('should keep at most the configured idle isolates per size', async () => {
    const [first, second] = await Promise.all([sut.acquire(16), sut.acquire(16)]);
    sut.release(first, true);
    sut.release(second, true);
    expect(sut.idleCount).toBe(1);
    expect(second.isolate.isDisposed).toBe(true);
  });

  it('should make callers wait beyond the concurrency limit', async () => {
    const [first, second] = await Promise.all([sut.acquire(16), sut.acquire(16)]);
    let granted = false;
    const third = sut.acquire(16).then((lease) => {
      granted = true;
      return lease;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(granted).toBe(false);
    sut.release(first, true);
    await expect(third).resolves.toBe(first);
    sut.release(second, true);
  });

  it('should stop waiting when the signal aborts', async () => {
    const leases = await Promise.all([sut.acquire(16), sut.acquire(16)]);
    const controller = new AbortController();
    const waiting = sut.acquire(16, controller.signal);
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    leases.forEach((lease) => sut.release(lease, true));
    expect(sut.activeCount).toBe(0);
  });

  it('should dispose leased isolates and fail waiters when closed', async () => {
    const leases = await Promise.all([sut.acquire(16), sut.acquire(16)]);
    const waiting = sut.acquire(16);
    sut.close();
    await expect(waiting).rejects.toBeInstanceOf(PoolClosedError);
    expect(leases.every((lease) => lease.isolate.isDisposed)).toBe(true);
    await expect(sut.acquire(16)).rejects.toBeInstanceOf(PoolClosedError);
  });
});
