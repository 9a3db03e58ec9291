import type { Job, Queue } from 'bullmq';
import type { RunJobData } from './run-job';
import type { RunQueueJobs } from './run-reconciler';

/** Jobs that still lead to a run's execution without a worker having taken them yet. */
const WAITING_JOB_STATES = ['waiting', 'delayed', 'prioritized', 'waiting-children'] as const;

const runIdOf = (job: Job<RunJobData>): string[] => {
  const runId = (job.data as Partial<RunJobData> | undefined)?.runId;
  return typeof runId === 'string' ? [runId] : [];
};

/** The run queue as the reconciler sees it: the runs of its live jobs, and `enqueue` to queue a run again. */
export function runQueueJobs(queue: Queue<RunJobData>, enqueue: (runId: string) => Promise<void>): RunQueueJobs {
  return {
    jobs: async () => {
      // Active ones apart (a job a stalled check put back keeps the processedOn of its last taking), and after
      // the waiting ones, so that a job taken in between is seen in one of the two lists.
      const waiting = await queue.getJobs([...WAITING_JOB_STATES]);
      const active = await queue.getJobs(['active']);
      return [
        ...waiting.flatMap((job) => runIdOf(job).map((runId) => ({ runId, takenAt: null }))),
        ...active.flatMap((job) => runIdOf(job).map((runId) => ({ runId, takenAt: job.processedOn ?? null }))),
      ];
    },
    enqueue,
  };
}
