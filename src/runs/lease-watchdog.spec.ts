import { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { LEASE_TRUSTED_SHARE, LeaseWatchdog } from './lease-watchdog';
import { RunLeaseLostError } from './run-supervisor';

describe(LeaseWatchdog.name, () => {
  const LEASE_MS = 10_000;
  const logger = new Logger('test');

  beforeEach(() => {
    jest.useFakeTimers();
    jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => jest.useRealTimers());

  it('should stop the execution once the share of the lease it can trust has passed since the lease was taken', () => {
    const controller = new AbortController();
    new LeaseWatchdog('r1', controller, LEASE_MS, performance.now(), logger);

    jest.advanceTimersByTime(LEASE_MS * LEASE_TRUSTED_SHARE - 100);
    expect(controller.signal.aborted).toBe(false);
    jest.advanceTimersByTime(100);

    expect(controller.signal.reason).toBeInstanceOf(RunLeaseLostError);
  });

  it('should count from the last renewal it was told of, and do nothing once stopped', () => {
    const controller = new AbortController();
    const watchdog = new LeaseWatchdog('r1', controller, LEASE_MS, performance.now(), logger);

    jest.advanceTimersByTime(LEASE_MS / 2);
    watchdog.trust(performance.now());
    jest.advanceTimersByTime(LEASE_MS * LEASE_TRUSTED_SHARE - 100);
    expect(controller.signal.aborted).toBe(false);
    watchdog.stop();
    jest.advanceTimersByTime(LEASE_MS);

    expect(controller.signal.aborted).toBe(false);
  });
});
