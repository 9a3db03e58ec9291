import { sleep } from './sleep';

describe('sleep', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('should resolve once the time has passed', async () => {
    let done = false;
    const waiting = sleep(1_000).then(() => (done = true));
    await jest.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    await waiting;
    expect(done).toBe(true);
  });

  it('should reject with the reason as soon as the signal aborts', async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('should reject at once when the signal has already aborted', async () => {
    const reason = new Error('gone');
    await expect(sleep(60_000, AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(jest.getTimerCount()).toBe(0);
  });
});
