import { RunStopWaiters } from './run-stop-waiters';

describe(RunStopWaiters.name, () => {
  let sut: RunStopWaiters;

  beforeEach(() => {
    jest.useFakeTimers();
    sut = new RunStopWaiters();
  });

  afterEach(() => jest.useRealTimers());

  /** How the wait ended so far: woken, timed out, or not yet. */
  const settled = async (promise: Promise<boolean>): Promise<'woken' | 'timed out' | 'waiting'> => {
    let outcome: 'woken' | 'timed out' | 'waiting' = 'waiting';
    void promise.then((woken) => (outcome = woken ? 'woken' : 'timed out'));
    await Promise.resolve();
    await Promise.resolve();
    return outcome;
  };

  it('should wake every watch of the run, and no watch of another run', async () => {
    const first = sut.watch('run-1');
    const second = sut.watch('run-1');
    const other = sut.watch('run-2');
    const waits = [first.next(1000), second.next(1000), other.next(1000)];

    sut.wake('run-1');

    expect(await settled(waits[0])).toBe('woken');
    expect(await settled(waits[1])).toBe('woken');
    expect(await settled(waits[2])).toBe('waiting');
  });

  it('should keep a wake-up that came while nobody waited, for the next wait only', async () => {
    const watch = sut.watch('run-1');

    sut.wake('run-1');

    expect(await settled(watch.next(1000))).toBe('woken');
    expect(await settled(watch.next(1000))).toBe('waiting');
  });

  it("should keep the answer the last wake-up carried for the watch's caller", async () => {
    const watch = sut.watch('run-1');

    sut.wake('run-1', '{"answer":1}');

    expect(await settled(watch.next(1000))).toBe('woken');
    expect(watch.answer()).toBe('{"answer":1}');
  });

  it('should wake every watch of every run at once', async () => {
    const waits = [sut.watch('run-1').next(1000), sut.watch('run-2').next(1000)];

    sut.wakeAll();

    expect(await settled(waits[0])).toBe('woken');
    expect(await settled(waits[1])).toBe('woken');
  });

  it('should end a wait after its time without a wake-up', async () => {
    const watch = sut.watch('run-1');
    const wait = watch.next(1000);

    jest.advanceTimersByTime(999);
    expect(await settled(wait)).toBe('waiting');
    jest.advanceTimersByTime(1);
    expect(await settled(wait)).toBe('timed out');
  });

  it('should forget a run once its last watch closed', () => {
    const first = sut.watch('run-1');
    const second = sut.watch('run-1');

    first.close();
    expect(sut.size).toBe(1);
    second.close();
    expect(sut.size).toBe(0);
  });
});
