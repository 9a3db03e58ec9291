import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { In, IsNull, Not, Repository } from 'typeorm';
import { isDeepStrictEqual } from 'node:util';
import { maskSecrets } from '../shared/secrets';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { isAdmin, type Principal } from '../common/auth/principal';
import type { Role } from '../shared/role';
import { DomainError } from '../common/errors/domain-error';
import type { Port } from '../common/port';
import type { Page } from '../common/http/pagination';
import { isDuplicateKey } from '../common/owned-queries';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { NodeRunEntity } from './node-run.entity';
import { parseSort, toBuilderOrder } from '../common/http/sort';
import type { RunBudgets, RunStopReason } from './run-budgets';
import type { RunDefinition, RunNodeRef } from './run-definition';
import type { ToolPins } from '../tools/stored-tool';
import { type ListRunsQuery, RUN_DEFAULT_SORT, RUN_SORT_FIELDS, type RunResponse } from './run.dto';
import { WORKFLOW_LOOKUP, type WorkflowLookup } from './workflow-lookup';
import { FINISHED_STATUSES, isFinished, RunEntity, type RunStatus, type UsageTotals } from './run.entity';
import { RunApprovalEntity } from './run-approval.entity';
import type { PendingApprovalDto } from './approval.dto';
import { toPendingApproval } from './approval-response';
import { type RunRecord, toRunRecord } from './run-record';
import { ToolCallLogsService } from '../call-logs/tool-call-logs.service';
import { type NodeRunRow, RunJournal } from './run-journal';
import { retryDatabaseWrite } from '../common/retry-database-write';
import { bulkInsert, updateRows } from '../common/plain-sql';
import { type EditedCall, stopReasonOf, toRunDetail, toRunResponse } from './run-response';

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
}

const EMPTY_USAGE: UsageTotals = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, model_calls: 0 };
const asRow = <T>(row: Partial<T>) => row as QueryDeepPartialEntity<T>;

/** A node run that ended before it was stored: a pure node's. */
export interface EndedNode {
  node: RunNodeRef;
  startedAt: Date;
  finishedAt: Date;
  result: { status: 'succeeded' | 'failed' | 'cancelled'; output?: unknown; error?: string };
}

const endedRow = ({ node, startedAt, finishedAt, result }: EndedNode): NodeRunRow => ({
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
 * Run records: create, status transitions, node runs, and the read model the API serves. Writes made
 * while a run executes retry through a database outage (RUN_DB_RETRY_MS) so that no run is lost to it.
 */
@Injectable()
export class RunsService {
  constructor(
    @InjectRepository(RunEntity) private readonly runs: Repository<RunEntity>,
    @InjectRepository(NodeRunEntity) private readonly nodeRuns: Repository<NodeRunEntity>,
    @InjectRepository(RunApprovalEntity) private readonly approvals: Repository<RunApprovalEntity>,
    private readonly toolCalls: ToolCallLogsService,
    private readonly journal: RunJournal,
    @Inject(WORKFLOW_LOOKUP) private readonly workflows: Port<WorkflowLookup>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
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
    await bulkInsert(this.runs.manager, RunEntity, [entity]);
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

  async finish(
    runId: string,
    result: {
      status: RunStatus;
      outputs?: Record<string, unknown> | null;
      error?: string | null;
      usage?: UsageTotals;
      stopReason?: RunStopReason;
    },
  ): Promise<void> {
    const changes = {
      status: result.status,
      outputs: result.outputs ?? null,
      error: result.error ?? null,
      stopReason: result.stopReason ?? stopReasonOf(result.status),
      usage: result.usage ?? EMPTY_USAGE,
      finishedAt: new Date(),
    };
    await this.retry(() => updateRows(this.runs.manager, RunEntity, { id: runId }, changes));
    this.journal.runChanged(runId, changes, true);
  }

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

  async get(runId: string, principal: Principal): Promise<RunResponse> {
    const run = await this.findVisible(runId, principal);
    const [nodes, calls, edits] = await Promise.all([
      this.nodeRuns.find({ where: { runId }, order: { startedAt: 'ASC' } }),
      this.toolCalls.listForRun(runId),
      this.editedCalls(runId),
    ]);
    return { ...toRunDetail(run, nodes, calls, edits), pending_approvals: await this.pendingApprovals(run) };
  }

  /**
   * Starts keeping a copy of what a run that is about to execute in this process writes, so that `endedHere`
   * can answer once it ended without reading it back.
   */
  keepCopy(run: RunRecord): void {
    this.journal.track(run);
  }

  /** Drops the copy `keepCopy` started (the run will not execute here after all). */
  forgetCopy(runId: string): void {
    this.journal.drop(runId);
  }

  /**
   * A run as `get` would read it, from the copy `keepCopy` kept, once its end was stored in this process
   * (a run that ended has no pending approvals); null when there is no such copy, and the copy is forgotten.
   */
  endedHere(runId: string): RunResponse | null {
    const journaled = this.journal.take(runId);
    if (!journaled) return null;
    const calls = journaled.calls.map((call) => this.toolCalls.asStored(call));
    calls.sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
    return { ...toRunDetail(journaled.run, [...journaled.nodes.values()], calls), pending_approvals: [] };
  }

  /** The calls of a run that wait for a decision; none once the run has ended. */
  /** Calls a person approved with arguments that differ from the model's. */
  private async editedCalls(runId: string): Promise<EditedCall[]> {
    const rows = await this.approvals.find({ where: { runId, status: 'approved', decidedArguments: Not(IsNull()) } });
    return rows
      .filter((row) => row.decidedArguments !== null && !isDeepStrictEqual(row.decidedArguments, row.arguments))
      .map((row) => ({
        nodeId: row.nodeId,
        callId: row.callId,
        modelArguments: maskSecrets(row.arguments),
        editedBy: row.decidedKeyName ?? row.decidedBy,
        editedAt: row.decidedAt,
      }));
  }

  private async pendingApprovals(run: RunRecord): Promise<PendingApprovalDto[]> {
    if (isFinished(run.status)) return [];
    const rows = await this.approvals.find({
      where: { runId: run.id, status: 'pending' },
      order: { requestedAt: 'ASC' },
    });
    return rows.map(toPendingApproval);
  }

  async list(query: ListRunsQuery, principal: Principal): Promise<Page<RunResponse>> {
    const order = parseSort(query.sort, RUN_SORT_FIELDS, RUN_DEFAULT_SORT);
    const builder = this.runs.createQueryBuilder('run');
    if (!isAdmin(principal)) builder.andWhere('run.userId = :userId', { userId: principal.userId });
    if (query.status) builder.andWhere('run.status = :status', { status: query.status });
    if (query.workflow_id) {
      // A name is resolved to the id it has now; an unknown value still matches runs of a deleted workflow's id.
      const workflowId = (await this.workflowLookup().idOf(query.workflow_id, principal)) ?? query.workflow_id;
      builder.andWhere('run.workflowId = :workflowId', { workflowId });
    }
    if (query.parent_run_id) builder.andWhere('run.parentRunId = :parentRunId', { parentRunId: query.parent_run_id });
    if (query.created_after) {
      builder.andWhere('run.createdAt >= :createdAfter', { createdAfter: new Date(query.created_after) });
    }
    if (query.created_before) {
      builder.andWhere('run.createdAt < :createdBefore', { createdBefore: new Date(query.created_before) });
    }
    const [entities, total] = await builder
      .orderBy(toBuilderOrder('run', order))
      .skip((query.page - 1) * query.page_size)
      .take(query.page_size)
      .getManyAndCount();
    return {
      items: entities.map((entity) => toRunResponse(toRunRecord(entity))),
      page: query.page,
      page_size: query.page_size,
      total,
    };
  }

  /** A new run as its 202 shows it: queued, no node started yet, whatever the worker has done since. */
  toAccepted(run: RunRecord): RunResponse {
    return { ...toRunResponse(run), nodes: [] };
  }

  private workflowLookup(): WorkflowLookup {
    return this.workflows.get();
  }

  async findVisible(runId: string, principal: Principal): Promise<RunRecord> {
    const run = await this.runs.findOneBy({ id: runId });
    if (!run || (!isAdmin(principal) && run.userId !== principal.userId)) throw DomainError.notFound('Run', runId);
    return toRunRecord(run);
  }

  private async retry(write: () => Promise<unknown>): Promise<void> {
    await retryDatabaseWrite(write, { budgetMs: this.config.runDbRetryMs, alreadyDone: isDuplicateKey });
  }
}
