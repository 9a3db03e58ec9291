import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { NodeRunEntity, type NodeRunStatus } from './node-run.entity';
import { RunCheckpointEntity } from './run-checkpoint.entity';
import { RunEventEntity, toEventRows } from './run-event.entity';
import { bulkInsert, inOrder, updateRows, updateStatement, upsertRow, upsertStatement } from '../common/plain-sql';
import type { RunEvent } from './run-event-types';
import { retryDatabaseWrite } from '../common/retry-database-write';
import { RunJournal } from './run-journal';

/**
 * What else a step wrote: events are stored in the checkpoint's transaction, so that both are there or neither;
 * a node run's end alone goes beside it (see RunCheckpointStore.save).
 */
export interface CheckpointStepWrites {
  /** A node run that ended with this step. */
  nodeFinished?: { nodeRunId: string; status: NodeRunStatus; output?: unknown; error?: string };
  /** Events of the step (numbered already), stored with it instead of on their own. */
  events?: readonly RunEvent[];
}

const nodeRunEnd = (ended: NonNullable<CheckpointStepWrites['nodeFinished']>, finishedAt: Date) => ({
  status: ended.status,
  output: ended.output ?? null,
  error: ended.error ?? null,
  finishedAt,
});

/**
 * Checkpoints of runs: one row per run holding its last state (JSON whose shape workflow/ owns). Each save
 * is one write per step; writes of the step ride along with it (see CheckpointStepWrites).
 */
@Injectable()
export class RunCheckpointStore {
  /** SQLite has one connection: transactions that overlap there would mix their statements, so they queue. */
  private sqliteQueue: Promise<unknown> = Promise.resolve();

  constructor(
    @InjectRepository(RunCheckpointEntity) private readonly checkpoints: Repository<RunCheckpointEntity>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly journal: RunJournal,
  ) {}

  async load(runId: string): Promise<Record<string, unknown> | null> {
    const row = await this.checkpoints.findOneBy({ runId });
    return row?.state ?? null;
  }

  async save(runId: string, state: Record<string, unknown>, step: CheckpointStepWrites = {}): Promise<void> {
    const finishedAt = new Date();
    const write = () =>
      retryDatabaseWrite(() => this.transaction(runId, state, step, finishedAt), {
        budgetMs: this.config.runDbRetryMs,
      });
    if (this.config.database.type !== 'sqlite') {
      await write();
    } else {
      const queued = this.sqliteQueue.then(write, write);
      this.sqliteQueue = queued.catch(() => undefined);
      await queued;
    }
    const ended = step.nodeFinished;
    if (ended) this.journal.nodeChanged(ended.nodeRunId, nodeRunEnd(ended, finishedAt));
  }

  private async transaction(
    runId: string,
    state: Record<string, unknown>,
    step: CheckpointStepWrites,
    finishedAt: Date,
  ): Promise<void> {
    const row: RunCheckpointEntity = { runId, state, updatedAt: new Date() };
    const ended = step.nodeFinished;
    if ((step.events ?? []).length === 0) {
      // The state alone is one statement, atomic by itself: no transaction around it (two statements fewer per step).
      if (!ended) return upsertRow(this.checkpoints.manager, RunCheckpointEntity, row, 'runId');
      // A node's end: its state, then its node run's end, in one round trip (one query on MySQL/MariaDB, see
      // inOrder), not in a transaction (one round trip where BEGIN, both and COMMIT were four). A crash between
      // them leaves the state without the node run's end, and the resume mends it: a stored output whose node run
      // is still running closes that node run with it (NodeRunsService.closeFinishedNodes). (A node run that ended
      // with no output stored, which writes on two connections could leave, is taken up again by the node's next
      // execution: NodeRunsService.runningNodeRun.) Both statements repeat safely.
      const { manager } = this.checkpoints;
      return inOrder(manager, [
        upsertStatement(manager, RunCheckpointEntity, row, 'runId'),
        updateStatement(manager, NodeRunEntity, { id: ended.nodeRunId }, nodeRunEnd(ended, finishedAt)),
      ]);
    }
    await this.checkpoints.manager.transaction(async (manager) => {
      await upsertRow(manager, RunCheckpointEntity, row, 'runId');
      if (ended) {
        await updateRows(manager, NodeRunEntity, { id: ended.nodeRunId }, nodeRunEnd(ended, finishedAt));
      }
      if (step.events && step.events.length > 0)
        await bulkInsert(manager, RunEventEntity, toEventRows(runId, step.events));
    });
  }
}
