import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { In, IsNull, Not, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { Role } from '../shared/role';
import { isDuplicateKey } from '../common/owned-queries';
import type { Port } from '../common/port';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { NodeRunEntity } from './node-run.entity';
import type { RunBudgets, RunStopReason } from './run-budgets';
import type { RunDefinition } from './run-definition';
import type { ToolPins } from '../tools/stored-tool';
import { type AdmitRun, RUN_ADMISSION, type RunAdmission } from './run-admission';
import { insertRunWithin } from './insert-run-within';
import { FINISHED_STATUSES, RunEntity, type RunStatus, type UsageTotals } from './run.entity';
import { type RunRecord, toRunRecord } from './run-record';
import { RunJournal } from './run-journal';
import { retryDatabaseWrite } from '../common/retry-database-write';
import { bulkInsert, inOrder, insertNewStatement, updateRows, updateStatement } from '../common/plain-sql';
import { type EndedNode, endedRow } from './node-runs.service';
import { stopReasonOf } from './run-response';

export interface NewRun {
  definition: RunDefinition;
  inputs: Record<string, unknown>;
  userId: string;
  /** The owner's role when the run was created: it decides which tools the run may use wherever it executes. */
  userRole: Role;
  workflowId?: string | null;
  workflowVersion?: number | null;
  parentRunId?: string | null;
  depth?: number;
  /** The tool versions the run is to use (see RunEntity.toolPins). */
  toolPins?: ToolPins;
  /** The run's own limits, already merged (request over definition). */
  budgets?: RunBudgets | null;
  /**
   * The run starts at once in this process (it holds a run slot, or it is a child run executed inline): it is
   * stored `running`, started now, in the same INSERT (no `markRunning`). Otherwise it is stored `queued`.
   */
  startsNow?: boolean;
  /** The admission of a top-level run, prepared when its request came (prepareAdmission); default: prepared now. */
  admission?: AdmitRun;
}

const EMPTY_USAGE: UsageTotals = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, model_calls: 0 };
/**
 * The state machine of run records: create, and every status change (queued, running, waiting, ended). Writes made
 * while a run executes retry through a database outage (RUN_DB_RETRY_MS) so that no run is lost to it. Node runs
 * are NodeRunsService's; what the API reads is RunQueriesService's.
 */
@Injectable()
export class RunsService {
  constructor(
    @InjectRepository(RunEntity) private readonly runs: Repository<RunEntity>,
    @InjectRepository(NodeRunEntity) private readonly nodeRuns: Repository<NodeRunEntity>,
    private readonly journal: RunJournal,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(RUN_ADMISSION) private readonly admission: Port<RunAdmission>,
  ) {}

  /** Fails every child run (and its node runs) still queued or running with `reason`; returns their ids. */
  async failUnfinishedChildren(reason: string): Promise<string[]> {
    const unfinished = await this.runs.find({
      select: { id: true },
      where: { status: In(['running', 'queued']), parentRunId: Not(IsNull()) },
    });
    const ids = unfinished.map((run) => run.id);
    for (const id of ids) this.journal.drop(id);
    const finishedAt = new Date();
    if (ids.length > 0) {
      const stopReason: RunStopReason = 'interrupted';
      await this.runs.update({ id: In(ids) }, { status: 'failed', error: reason, stopReason, finishedAt });
      await this.nodeRuns.update(
        { runId: In(ids), status: 'running' },
        { status: 'failed', error: reason, finishedAt },
      );
    }
    return ids;
  }

  /** Top-level runs still queued or running, oldest first: what a restarted embedded service resumes. */
  async unfinishedTopLevel(): Promise<string[]> {
    const unfinished = await this.runs.find({
      select: { id: true },
      where: { status: In(['running', 'queued']), parentRunId: IsNull() },
      order: { createdAt: 'ASC' },
    });
    return unfinished.map((run) => run.id);
  }

  /** A run by id, for the process that executes it (no visibility check: the run carries its owner). */
  async record(runId: string): Promise<RunRecord | null> {
    const run = await this.runs.findOneBy({ id: runId });
    return run ? toRunRecord(run) : null;
  }

  /**
   * Starts reading what admitting a new top-level run of the user takes (its quotas), for `create`: prepared before
   * the run's workflow is read, the read is no round trip of its own before the run is stored.
   */
  prepareAdmission(userId: string): AdmitRun {
    return this.admission.get().prepare(userId);
  }

  async create(input: NewRun): Promise<RunRecord> {
    const createdAt = new Date();
    const entity = this.runs.create({
      id: randomUUID(),
      workflowId: input.workflowId ?? null,
      workflowVersion: input.workflowVersion ?? null,
      parentRunId: input.parentRunId ?? null,
      depth: input.depth ?? 0,
      definition: input.definition,
      status: input.startsNow ? 'running' : 'queued',
      inputs: input.inputs,
      outputs: null,
      error: null,
      usage: EMPTY_USAGE,
      budgets: input.budgets ?? null,
      stopReason: null,
      userId: input.userId,
      userRole: input.userRole,
      createdAt,
      startedAt: input.startsNow ? createdAt : null,
      finishedAt: null,
      toolPins: input.toolPins ?? null,
    });
    if (input.parentRunId) await bulkInsert(this.runs.manager, RunEntity, [entity]);
    else {
      const admit = input.admission ?? this.prepareAdmission(input.userId);
      await admit((limits, manager) => insertRunWithin(manager, entity, limits));
    }
    return toRunRecord(entity);
  }

  /** The run's status, or null when there is no such run. */
  async statusOf(runId: string): Promise<RunStatus | null> {
    const run = await this.runs.findOne({ select: { id: true, status: true }, where: { id: runId } });
    return run?.status ?? null;
  }

  /** Marks a run that has not ended `cancelled`; false when it had already ended. */
  async cancelUnfinished(runId: string, reason: string): Promise<boolean> {
    this.journal.drop(runId);
    const result = await this.runs.update(
      { id: runId, status: Not(In(FINISHED_STATUSES)) },
      { status: 'cancelled', error: reason, stopReason: 'cancelled', finishedAt: new Date() },
    );
    return result.affected === 1;
  }

  /** A running run now waits for a person (holding no worker); false when it is no longer running (cancelled). */
  async markWaiting(runId: string, usage?: UsageTotals): Promise<boolean> {
    this.journal.drop(runId);
    let affected = 0;
    await this.retry(async () => {
      const result = await this.runs.update(
        { id: runId, status: 'running' },
        { status: 'waiting', leaseOwner: null, leaseExpiresAt: null, ...(usage && { usage }) },
      );
      affected = result.affected ?? 0;
    });
    return affected === 1;
  }

  /**
   * A waiting run goes on (every decision is made): back to `running` with no lease, which is what a restart or a
   * lease sweep resumes, so it is not lost if the process that takes it up dies. False when it was not waiting.
   */
  async resumeWaiting(runId: string): Promise<boolean> {
    this.journal.drop(runId);
    const result = await this.runs.update(
      { id: runId, status: 'waiting' },
      { status: 'running', leaseOwner: null, leaseExpiresAt: null },
    );
    return result.affected === 1;
  }

  async markRunning(runId: string): Promise<void> {
    const startedAt = new Date();
    await this.retry(() => updateRows(this.runs.manager, RunEntity, { id: runId }, { status: 'running', startedAt }));
    this.journal.runChanged(runId, { status: 'running', startedAt });
  }

  /**
   * Stores how a run ended. With `leaseOwner` (queue mode) only while that worker still holds the run's lease: a
   * worker that lost it (a takeover after its lease lapsed) must not end a run another worker now executes.
   * False when the lease had gone and nothing was stored.
   */
  async finish(
    runId: string,
    result: {
      status: RunStatus;
      outputs?: Record<string, unknown> | null;
      error?: string | null;
      usage?: UsageTotals;
      stopReason?: RunStopReason;
    },
    leaseOwner?: string,
    /** Node runs of pure nodes that ended last (the end node's): stored just before the row, in the same round trip. */
    ended: readonly EndedNode[] = [],
  ): Promise<boolean> {
    const rows = ended.map((node) => ({ ...endedRow(node), runId }));
    const changes = {
      status: result.status,
      outputs: result.outputs ?? null,
      error: result.error ?? null,
      stopReason: result.stopReason ?? stopReasonOf(result.status),
      usage: result.usage ?? EMPTY_USAGE,
      finishedAt: new Date(),
    };
    const { manager } = this.runs;
    const nodeRuns = rows.length > 0 ? [insertNewStatement(manager, NodeRunEntity, rows)] : [];
    if (leaseOwner === undefined) {
      // The node runs first: a run that reads as ended has every node run stored.
      await this.retry(() =>
        inOrder(manager, [...nodeRuns, updateStatement(manager, RunEntity, { id: runId }, changes)]),
      );
    } else {
      if (nodeRuns.length > 0) await this.retry(() => inOrder(manager, nodeRuns));
      let affected = 0;
      await this.retry(async () => {
        // The repository's UPDATE, which counts the rows it matched (updateRows does not).
        const fenced = changes as QueryDeepPartialEntity<RunEntity>;
        affected = (await this.runs.update({ id: runId, leaseOwner }, fenced)).affected ?? 0;
      });
      if (affected === 0) return false;
    }
    for (const row of rows) this.journal.nodeWritten(runId, row);
    this.journal.runChanged(runId, changes, true);
    return true;
  }

  private async retry(write: () => Promise<unknown>): Promise<void> {
    await retryDatabaseWrite(write, { budgetMs: this.config.runDbRetryMs, alreadyDone: isDuplicateKey });
  }
}
