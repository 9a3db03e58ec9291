import type { ToolCallRecord } from './call-record';

/** Writes one batch: the log rows and how many calls each tool id had, together. */
export type CallLogBatchWriter = (records: ToolCallRecord[], useCounts: ReadonlyMap<string, number>) => Promise<void>;

interface PendingRun {
  records: ToolCallRecord[];
  writing: Promise<void>;
}

/**
 * The call logs and use counts of runs, kept off the model's critical path: a call is queued, and the calls
 * of a run queued since the last write are written together (one INSERT for the rows, one UPDATE per tool)
 * when the run's step ends (`flushInBackground`) or before the run is recorded as ended (`flushRun`,
 * awaited). A failed background write keeps its records for the next one; the failure of `flushRun` is thrown.
 */
export class DeferredCallLogs {
  private readonly pending = new Map<string, PendingRun>();

  constructor(
    private readonly write: CallLogBatchWriter,
    private readonly onBackgroundError: (error: unknown, runId: string) => void,
  ) {}

  add(runId: string, record: ToolCallRecord): void {
    let run = this.pending.get(runId);
    if (!run) {
      run = { records: [], writing: Promise.resolve() };
      this.pending.set(runId, run);
    }
    run.records.push(record);
  }

  /**
   * Starts writing what the run has queued and returns at once. The promise settles when the write is over; it
   * never rejects: a failure is reported and its records wait for the next write.
   */
  flushInBackground(runId: string): Promise<void> {
    return this.flushRun(runId).catch((error: unknown) => {
      this.onBackgroundError(error, runId);
    });
  }

  /** Resolves when every call of the run queued so far is stored. */
  async flushRun(runId: string): Promise<void> {
    const run = this.pending.get(runId);
    if (!run) return;
    // Taken when the previous write ends, so calls queued during a slow write join this batch.
    const writing = run.writing.then(async () => {
      const batch = run.records.splice(0);
      if (batch.length === 0) return;
      try {
        await this.write(batch, useCounts(batch));
      } catch (error) {
        run.records.unshift(...batch);
        throw error;
      }
    });
    run.writing = writing.catch(() => undefined);
    await writing;
    if (run.records.length === 0 && this.pending.get(runId) === run) this.pending.delete(runId);
  }

  /** Resolves when every queued call of every run is stored (at shutdown). */
  async flushAll(): Promise<void> {
    await Promise.all([...this.pending.keys()].map((runId) => this.flushRun(runId)));
  }
}

/** How many of the calls each tool id had. */
export function useCounts(records: readonly ToolCallRecord[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const record of records) {
    if (record.toolId) counts.set(record.toolId, (counts.get(record.toolId) ?? 0) + 1);
  }
  return counts;
}
