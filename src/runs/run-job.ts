import type { RunRecord } from './run-record';

/** A run's record as a job carries it: JSON, so its dates are ISO strings. */
export type RunRecordJson = Omit<RunRecord, 'createdAt' | 'startedAt' | 'finishedAt'> & {
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
};

/**
 * The data of a job of the run queue: a wake-up call for run `runId`. The job of a run just created also carries
 * its record, so that the worker that starts it need not read it back (see RunLeasesService.acquireFresh).
 */
export interface RunJobData {
  runId: string;
  run?: RunRecordJson;
  /** A request waits for the new run's end (`?wait=true`): its worker publishes the run as it ended. */
  awaited?: boolean;
}

const dateOf = (value: string | null): Date | null => (value === null ? null : new Date(value));

export const toRunJobData = (run: RunRecord, awaited = false): RunJobData => ({
  runId: run.id,
  ...(awaited ? { awaited } : {}),
  run: {
    ...run,
    createdAt: run.createdAt.toISOString(),
    startedAt: run.startedAt?.toISOString() ?? null,
    finishedAt: run.finishedAt?.toISOString() ?? null,
  },
});

/** The record a job carries, or undefined when it carries none (or one that is not this run's). */
export function runRecordOf(data: RunJobData): RunRecord | undefined {
  const run = data.run;
  if (run?.id !== data.runId) return undefined;
  return {
    ...run,
    createdAt: new Date(run.createdAt),
    startedAt: dateOf(run.startedAt),
    finishedAt: dateOf(run.finishedAt),
  };
}
