import { getEventListeners } from 'node:events';
import { Deadline } from './deadline';

describe(Deadline.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('should abort as cancelled with the reason of the parent', () => {
    const parent = new AbortController();
    const sut = new Deadline({ parent: parent.signal, timeoutMs: 1_000 });
    const reason = new Error('run cancelled');

    parent.abort(reason);

    expect(sut.cause).toBe('cancelled');
    expect(sut.signal.reason).toBe(reason);
    sut.dispose();
  });

  it('should start aborted when the parent already is', () => {
    const parent = new AbortController();
    parent.abort();

    const sut = new Deadline({ parent: parent.signal, timeoutMs: 0 });
    jest.advanceTimersByTime(10);

    expect(sut.cause).toBe('cancelled');
    sut.dispose();
  });

  it('should abort as timeout with a TimeoutError naming the limit, or the reason it was given', () => {
    const plain = new Deadline({ timeoutMs: 50 });
    const custom = new Deadline({ timeoutMs: 50, timeoutReason: () => 'too slow' });

    jest.advanceTimersByTime(49);
    expect(plain.signal.aborted).toBe(false);
    jest.advanceTimersByTime(1);

    expect(plain.cause).toBe('timeout');
    expect(plain.signal.reason).toMatchObject({ name: 'TimeoutError', message: 'timed out after 50 ms' });
    expect(custom.signal.reason).toBe('too slow');
  });

  it('should start the time limit over on restart', () => {
    const sut = new Deadline({ timeoutMs: 50 });

    jest.advanceTimersByTime(40);
    sut.restart();
    expect(sut.remainingMs).toBe(50);
    jest.advanceTimersByTime(40);
    expect(sut.signal.aborted).toBe(false);
    jest.advanceTimersByTime(10);

    expect(sut.cause).toBe('timeout');
  });

  it('should tell the time left, Infinity without a limit', () => {
    const sut = new Deadline({ timeoutMs: 50 });

    jest.advanceTimersByTime(20);

    expect(sut.remainingMs).toBe(30);
    expect(new Deadline().remainingMs).toBe(Infinity);
  });

  it('should abort on cancel without a cause and not time out afterwards', () => {
    const sut = new Deadline({ timeoutMs: 50 });

    sut.cancel();
    jest.advanceTimersByTime(100);

    expect(sut.signal.aborted).toBe(true);
    expect(sut.cause).toBeNull();
  });

  it('should never abort without a parent or a time limit', () => {
    const sut = new Deadline();

    jest.advanceTimersByTime(1e9);

    expect(sut.signal.aborted).toBe(false);
  });

  it('should remove its listener from the parent on dispose and ignore the parent afterwards', () => {
    const parent = new AbortController();
    const deadlines = Array.from({ length: 5 }, () => new Deadline({ parent: parent.signal, timeoutMs: 50 }));
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(5);

    for (const deadline of deadlines) deadline.dispose();
    parent.abort();
    jest.advanceTimersByTime(100);

    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    expect(deadlines.map((deadline) => deadline.signal.aborted)).toEqual([false, false, false, false, false]);
  });
});
