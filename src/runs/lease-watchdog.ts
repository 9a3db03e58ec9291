import type { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { RunLeaseLostError } from './run-supervisor';

/**
 * Share of RUN_LEASE_MS after the last renewal that reached the database within which a worker goes on executing
 * a run: past it, the lease may have run out (on the database's clock, as another worker's reconciler sees it), so
 * the execution stops before another worker can take the run over, even when this process was starved of CPU.
 */
export const LEASE_TRUSTED_SHARE = 0.8;

/**
 * Stops a run's execution (aborts it with RunLeaseLostError) once its lease can no longer be trusted to be held:
 * LEASE_TRUSTED_SHARE of the lease after the statement that last took or renewed it was sent, unless a later one
 * succeeded meanwhile (`trust`).
 */
export class LeaseWatchdog {
  private timer: NodeJS.Timeout;

  constructor(
    private readonly runId: string,
    private readonly controller: AbortController,
    private readonly leaseMs: number,
    /** When (performance.now()) the statement that took the lease was sent. */
    sentAt: number,
    private readonly logger: Logger,
  ) {
    this.timer = this.arm(sentAt);
  }

  /** The lease was taken or renewed by a statement sent at `sentAt` (performance.now()). */
  trust(sentAt: number): void {
    clearTimeout(this.timer);
    this.timer = this.arm(sentAt);
  }

  /** The execution ended. */
  stop(): void {
    clearTimeout(this.timer);
  }

  private arm(sentAt: number): NodeJS.Timeout {
    const left = sentAt + this.leaseMs * LEASE_TRUSTED_SHARE - performance.now();
    const timer = setTimeout(
      () => {
        if (this.controller.signal.aborted) return;
        this.logger.warn({ runId: this.runId }, 'stopped a run whose lease could not be renewed in time');
        this.controller.abort(new RunLeaseLostError());
      },
      Math.max(0, left),
    );
    timer.unref();
    return timer;
  }
}
