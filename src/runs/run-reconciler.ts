import type { RunLeasesService } from './run-leases.service';

/** How many unowned runs one pass looks at; the next pass takes the rest. */
const BATCH = 100;

/** A job in the run queue that may still lead to its run's execution. */
export interface RunQueueJob {
  runId: string;
  /** When a worker took the job (ms since the epoch, that worker's clock); null while it waits or is delayed. */
  takenAt: number | null;
}

/** What the reconciler needs from the run queue. */
export interface RunQueueJobs {
  /** The jobs waiting, delayed or being processed. */
  jobs(): Promise<RunQueueJob[]>;
  enqueue(runId: string): Promise<void>;
}

/**
 * Queue mode's guarantee that every queued or running run has a live owner: a worker's lease, or a job
 * in the queue. A run with neither (its job failed or vanished while the database was away, its worker
 * died before leasing it or lost its lease) is claimed for one lease period and queued again, so that of
 * several workers reconciling at once exactly one re-queues it, and again only if that job is lost too.
 * A run never held is left alone for one lease period: its submitter is still queueing it.
 * A job a worker took counts for one lease period only: a worker leases its run at once, so one that has not
 * by then died or is stuck (a hung database connection, while its Redis connection keeps the job's lock alive).
 * Its late lease attempt then finds the run taken or ended: a second job is harmless, the lease decides.
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
    const live = liveRunIds(await this.jobs.jobs(), this.leaseMs);
    const requeued: string[] = [];
    for (const runId of unowned) {
      if (live.has(runId) || !(await this.leases.claimUnowned(runId, this.leaseMs))) continue;
      await this.jobs.enqueue(runId);
      requeued.push(runId);
    }
    return requeued;
  }
}

/** Runs whose job waits for a worker, or was taken less than a lease period ago. */
function liveRunIds(jobs: readonly RunQueueJob[], leaseMs: number): ReadonlySet<string> {
  const takenSince = Date.now() - leaseMs;
  return new Set(jobs.filter((job) => job.takenAt === null || job.takenAt > takenSince).map((job) => job.runId));
}
