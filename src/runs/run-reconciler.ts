import type { RunLeasesService } from './run-leases.service';

/** How many unowned runs one pass looks at; the next pass takes the rest. */
const BATCH = 100;

/** What the reconciler needs from the run queue. */
export interface RunQueueJobs {
  /** Ids of the runs that have a job waiting, delayed or being processed. */
  liveRunIds(): Promise<ReadonlySet<string>>;
  enqueue(runId: string): Promise<void>;
}

/**
 * Queue mode's guarantee that every queued or running run has a live owner: a worker's lease, or a job
 * in the queue. A run with neither (its job failed or vanished while the database was away, its worker
 * died before leasing it or lost its lease) is claimed for one lease period and queued again, so that of
 * several workers reconciling at once exactly one re-queues it, and again only if that job is lost too.
 * A run never held is left alone for one lease period: its submitter is still queueing it.
 */
export class RunReconciler {
  constructor(
    private readonly leases: RunLeasesService,
    private readonly jobs: RunQueueJobs,
    private readonly leaseMs: number,
  ) {}

  /** One pass; returns the runs it queued again. */
  async reconcile(): Promise<string[]> {
    const unowned = await this.leases.unowned(BATCH, this.leaseMs);
    if (unowned.length === 0) return [];
    const live = await this.jobs.liveRunIds();
    const requeued: string[] = [];
    for (const runId of unowned) {
      if (live.has(runId) || !(await this.leases.claimUnowned(runId, this.leaseMs))) continue;
      await this.jobs.enqueue(runId);
      requeued.push(runId);
    }
    return requeued;
  }
}
