/** Waits for the next wake-up of one run's watch, or `ms`, whichever comes first. */
export interface RunStopWatch {
  /**
   * Resolves true at a wake-up, at once when one came since the last call (none is lost while the caller reads the
   * run), or false after `ms`.
   */
  next(ms: number): Promise<boolean>;
  /** The answer the last wake-up carried (a run-stopped message's, unparsed), if any. */
  answer(): string | undefined;
  close(): void;
}

/**
 * The requests of this process waiting for runs to stop (queue mode's ?wait=true), by run id: `wake` is called
 * when a worker says a run's execution stopped, and wakes every watch of that run.
 */
export class RunStopWaiters {
  private readonly byRun = new Map<string, Set<(answer?: string) => void>>();

  /** Wakes every watch of `runId`; `answer`: what the message that told it carried, for the watch's `answer`. */
  wake(runId: string, answer?: string): void {
    for (const wake of this.byRun.get(runId) ?? []) wake(answer);
  }

  /** Wakes every watch of every run (a wake-up may have been missed): each looks at its run again. */
  wakeAll(): void {
    for (const waiters of this.byRun.values()) for (const wake of waiters) wake();
  }

  /** Starts watching `runId` now: a wake-up from this moment on is kept until `next` takes it. */
  watch(runId: string): RunStopWatch {
    let woken = false;
    let carried: string | undefined;
    let resolveNext: (() => void) | null = null;
    const waiter = (answer?: string) => {
      woken = true;
      carried = answer;
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
      answer: () => carried,
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
