/** How long the lease of a run that ended may stay held so that one statement lets go of several. */
export const RELEASE_BATCH_MS = 100;

/**
 * Lets go, in one statement per RELEASE_BATCH_MS, of the leases of runs that ended in this process. A run that
 * ended is never taken again; its lease only tells an event stream that its worker may still be storing the end
 * of its log, which it had stored before handing the run here, so its release may wait a moment for others.
 */
export class LeaseReleases {
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    /** Lets go of the leases this process holds on `runIds`, in one statement. */
    private readonly release: (runIds: string[]) => Promise<unknown>,
    /** A failed release: the leases run out by themselves. */
    private readonly failed: (error: unknown) => void,
  ) {}

  /** The lease of `runId`, whose end and last events are stored, is let go of within RELEASE_BATCH_MS. */
  add(runId: string): void {
    this.pending.add(runId);
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), RELEASE_BATCH_MS);
    this.timer.unref();
  }

  /** Lets go of every pending lease now. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const runIds = [...this.pending];
    this.pending.clear();
    if (runIds.length === 0) return;
    try {
      await this.release(runIds);
    } catch (error) {
      this.failed(error);
    }
  }
}
