/** Waits for the next wake-up of one run's watch, or `ms`, whichever comes first. */
export interface RunStopWatch {
  /**
   * Resolves true at a wake-up, at once when one came since the last call (none is lost while the caller reads the
   * run), or false after `ms`.
   */
  next(ms: number): Promise<boolean>;
  close(): void;
}

/**
 * The requests of this process waiting for runs to stop (queue mode's ?wait=true), by run id: `wake` is called
 * when a worker says a run's execution stopped, and wakes every watch of that run.
 */
export class RunStopWaiters {
  private readonly byRun = new Map<string, Set<() => void>>();

  wake(runId: string): void {
    for (const wake of this.byRun.get(runId) ?? []) wake();
  }

  /** Starts watching `runId` now: a wake-up from this moment on is kept until `next` takes it. */
  watch(runId: string): RunStopWatch {
    let woken = false;
    let resolveNext: (() => void) | null = null;
    const waiter = () => {
      woken = true;
      resolveNext?.();
    };
    let waiters = this.byRun.get(runId);
    if (!waiters) {
      waiters = new Set();
      this.byRun.set(runId, waiters);
    }
    waiters.add(waiter);
    return {
      next: (ms) =>
        new Promise<boolean>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            resolveNext = null;
            resolve(woken);
            woken = false;
          };
          const timer = setTimeout(done, ms);
          resolveNext = done;
          if (woken) done();
        }),
      close: () => {
        const current = this.byRun.get(runId);
        current?.delete(waiter);
        if (current?.size === 0) this.byRun.delete(runId);
      },
    };
  }

  /** Runs watched now. */
  get size(): number {
    return this.byRun.size;
  }
}
