import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { isDeepStrictEqual } from 'node:util';
import { IsNull, Not, Repository } from 'typeorm';
import { isAdmin, type Principal } from '../common/auth/principal';
import { DomainError } from '../common/errors/domain-error';
import type { Page } from '../common/http/pagination';
import { parseSort, toBuilderOrder } from '../common/http/sort';
import type { Port } from '../common/port';
import { ToolCallLogsService } from '../call-logs/tool-call-logs.service';
import { maskSecrets } from '../shared/secrets';
import type { PendingApprovalDto } from './approval.dto';
import { toPendingApproval } from './approval-response';
import { NodeRunEntity } from './node-run.entity';
import { RunApprovalEntity } from './run-approval.entity';
import { RunJournal } from './run-journal';
import { type RunRecord, toRunRecord } from './run-record';
import { type EditedCall, toRunDetail, toRunResponse } from './run-response';
import { type ListRunsQuery, RUN_DEFAULT_SORT, RUN_SORT_FIELDS, type RunResponse } from './run.dto';
import { isFinished, RunEntity } from './run.entity';
import { WORKFLOW_LOOKUP, type WorkflowLookup } from './workflow-lookup';

/** The runs as the API reads them: one run with its node runs, calls and approvals, a page of runs, visibility. */
@Injectable()
export class RunQueriesService {
  constructor(
    @InjectRepository(RunEntity) private readonly runs: Repository<RunEntity>,
    @InjectRepository(NodeRunEntity) private readonly nodeRuns: Repository<NodeRunEntity>,
    @InjectRepository(RunApprovalEntity) private readonly approvals: Repository<RunApprovalEntity>,
    private readonly toolCalls: ToolCallLogsService,
    private readonly journal: RunJournal,
    @Inject(WORKFLOW_LOOKUP) private readonly workflows: Port<WorkflowLookup>,
  ) {}

  async get(runId: string, principal: Principal): Promise<RunResponse> {
    return this.detail(await this.findVisible(runId, principal));
  }

  /** A run read already (`findVisible`), with its node runs, calls and approvals, as `get` answers it. */
  async detail(run: RunRecord): Promise<RunResponse> {
    const runId = run.id;
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

  /** The calls of a run that wait for a decision; none once the run has ended. */
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
}
