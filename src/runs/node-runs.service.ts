import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { In, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { isDuplicateKey } from '../common/owned-queries';
import { bulkInsert, updateRows } from '../common/plain-sql';
import { retryDatabaseWrite } from '../common/retry-database-write';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { NodeRunEntity } from './node-run.entity';
import type { RunNodeRef } from './run-definition';
import { type NodeRunRow, RunJournal } from './run-journal';

const asRow = <T>(row: Partial<T>) => row as QueryDeepPartialEntity<T>;

/** A node run that ended before it was stored: a pure node's. */
export interface EndedNode {
  node: RunNodeRef;
  startedAt: Date;
  finishedAt: Date;
  result: { status: 'succeeded' | 'failed' | 'cancelled'; output?: unknown; error?: string };
}

/** The row of a node run that ended before it was stored. */
export const endedRow = ({ node, startedAt, finishedAt, result }: EndedNode): NodeRunRow => ({
  id: randomUUID(),
  nodeId: node.id,
  nodeType: node.type,
  status: result.status,
  output: result.output ?? null,
  error: result.error ?? null,
  startedAt,
  finishedAt,
});

/**
 * The node runs of a run as it executes (the engine's NodeRunRecorder), and their repair when a run resumes.
 * Writes retry through a database outage (RUN_DB_RETRY_MS), as the run's own do.
 */
@Injectable()
export class NodeRunsService {
  constructor(
    @InjectRepository(NodeRunEntity) private readonly nodeRuns: Repository<NodeRunEntity>,
    private readonly journal: RunJournal,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Stores a node run that starts, and in the same INSERT the node runs of pure nodes that `ended` before it. */
  async nodeStarted(runId: string, node: RunNodeRef, ended: readonly EndedNode[] = []): Promise<string> {
    const id = randomUUID();
    const row: NodeRunRow = {
      id,
      nodeId: node.id,
      nodeType: node.type,
      status: 'running',
      output: null,
      error: null,
      startedAt: new Date(),
      finishedAt: null,
    };
    await this.insertNodeRuns(runId, [...ended.map(endedRow), row]);
    return id;
  }
  /** Ends the node runs an earlier execution of the run left running, when the run ends before it reaches them. */
  async closeRunningNodes(runId: string, result: { status: 'failed' | 'cancelled'; error: string }): Promise<void> {
    this.journal.drop(runId);
    const changes = asRow<NodeRunEntity>({ status: result.status, error: result.error, finishedAt: new Date() });
    await this.retry(() => this.nodeRuns.update({ runId, status: 'running' }, changes));
  }

  /** Stores node runs that already ended (pure nodes'), in one INSERT. */
  async nodeEnded(runId: string, ended: readonly EndedNode[]): Promise<void> {
    await this.insertNodeRuns(runId, ended.map(endedRow));
  }

  private async insertNodeRuns(runId: string, rows: NodeRunRow[]): Promise<void> {
    await this.retry(() =>
      bulkInsert(
        this.nodeRuns.manager,
        NodeRunEntity,
        rows.map((row) => ({ ...row, runId })),
      ),
    );
    for (const row of rows) this.journal.nodeWritten(runId, row);
  }

  /** Whether a previous execution of this run stored a node run for this node. */
  async hasNodeRun(runId: string, nodeId: string): Promise<boolean> {
    return this.nodeRuns.exists({ where: { runId, nodeId } });
  }

  /**
   * The node run a previous execution of this run left running for this node (a resumed run goes on with it).
   * It is asked only for a node whose output the checkpoint does not hold: a node run of it that succeeded is one
   * whose end was stored while the state with its output was not (a crash between the two, see
   * RunCheckpointStore.save), and it goes on too.
   */
  async runningNodeRun(runId: string, nodeId: string): Promise<string | null> {
    const row = await this.nodeRuns.findOne({
      select: { id: true },
      where: { runId, nodeId, status: In(['running', 'succeeded']) },
      order: { startedAt: 'DESC' },
    });
    return row?.id ?? null;
  }

  /**
   * Ends, with the output the checkpoint holds, the node runs a previous execution left running for nodes that had
   * finished: their state was stored while their node run's end was not (a crash between the two).
   */
  async closeFinishedNodes(runId: string, outputs: ReadonlyMap<string, unknown>): Promise<void> {
    if (outputs.size === 0) return;
    const running = await this.nodeRuns.find({
      select: { id: true, nodeId: true },
      where: { runId, status: 'running' },
    });
    for (const row of running) {
      if (outputs.has(row.nodeId)) {
        await this.nodeFinished(row.id, { status: 'succeeded', output: outputs.get(row.nodeId) });
      }
    }
  }

  async nodeFinished(
    nodeRunId: string,
    result: { status: 'succeeded' | 'failed' | 'cancelled'; output?: unknown; error?: string },
  ): Promise<void> {
    const changes = {
      status: result.status,
      output: result.output ?? null,
      error: result.error ?? null,
      finishedAt: new Date(),
    };
    await this.retry(() => updateRows(this.nodeRuns.manager, NodeRunEntity, { id: nodeRunId }, changes));
    this.journal.nodeChanged(nodeRunId, changes);
  }

  private async retry(write: () => Promise<unknown>): Promise<void> {
    await retryDatabaseWrite(write, { budgetMs: this.config.runDbRetryMs, alreadyDone: isDuplicateKey });
  }
}
