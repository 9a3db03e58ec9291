import { ShutdownGrace } from './shutdown-grace';

describe(ShutdownGrace.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('should give every reader what is left of one grace period, started by the first', () => {
    const sut = new ShutdownGrace(10_000);
    jest.advanceTimersByTime(5_000);

    expect(sut.remainingMs).toBe(10_000);
    jest.advanceTimersByTime(4_000);
    expect(sut.remainingMs).toBe(6_000);
    jest.advanceTimersByTime(7_000);
    expect(sut.remainingMs).toBe(0);
  });

  it('should keep the start of the first begin', () => {
    const sut = new ShutdownGrace(1_000);

    sut.begin();
    jest.advanceTimersByTime(600);
    sut.begin();

    expect(sut.remainingMs).toBe(400);
  });
});
