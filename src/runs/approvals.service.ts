import { Inject, Injectable, Logger } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { In, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { isAdmin, type Principal } from '../common/auth/principal';
import { DomainError } from '../common/errors/domain-error';
import type { Page } from '../common/http/pagination';
import { isDuplicateKey } from '../common/owned-queries';
import { ArgumentValidator } from '../json-schema/argument-validator';
import { pointerToField } from '../json-schema/json-pointer';
import { ParametersSchemaError } from '../json-schema/parameters-schema-error';
import { maskArguments, restoreMaskedArguments, secretArgumentNames } from '../shared/argument-secrets';
import type { JsonSchema } from '../shared/tool-types';
import type { ApprovalResponse, DecideApprovalDto, ListApprovalsQuery } from './approval.dto';
import { type ApprovalRun, toApprovalResponse } from './approval-response';
import { type ApprovalStatus, RunApprovalEntity } from './run-approval.entity';
import type { RunResponse } from './run.dto';
import { FINISHED_STATUSES, isFinished, RunEntity, type UsageTotals } from './run.entity';
import { RunEventsService } from './run-events.service';
import type { RunEventType } from './run-event-types';
import { RUN_SUPERVISOR, type RunSupervisor } from './run-supervisor';
import { RunsService } from './runs.service';
import { RunQueriesService } from './run-queries.service';

/** A call an LLM node asks a person about. */
export interface ApprovalRequest {
  runId: string;
  nodeId: string;
  callId: string;
  toolName: string;
  /** The model's arguments after validation. */
  arguments: Record<string, unknown>;
  /** The parameters schema of the tool as the run uses it: edited arguments must pass it. */
  parameters: JsonSchema;
  /** The run's owner. */
  userId: string;
}

/** Where a requested call stands; `created` is true for the request that stored it. */
export interface ApprovalState {
  id: string;
  created: boolean;
  status: ApprovalStatus;
  decidedArguments: Record<string, unknown> | null;
  comment: string | null;
  requestedAt: Date;
}

/** An approval whose run row is gone: listed as it is stored, with no workflow. */
const GONE_RUN: ApprovalRun = { ended: false, workflowId: null, workflowName: null, workflowVersion: null };

const asRow = (row: Partial<RunApprovalEntity>) => row as QueryDeepPartialEntity<RunApprovalEntity>;

const stateOf = (row: RunApprovalEntity, created: boolean): ApprovalState => ({
  id: row.id,
  created,
  status: row.status,
  decidedArguments: row.decidedArguments,
  comment: row.comment,
  requestedAt: row.requestedAt,
});

/**
 * Tool calls that wait for a person: requested by the LLM node that made them (the run then waits, holding no
 * worker), decided over REST by the run's owner or an admin. The decision that leaves a run with nothing
 * pending puts it back to running and hands it to the supervisor, which resumes it from its checkpoint.
 */
@Injectable()
export class ApprovalsService {
  private readonly logger = new Logger(ApprovalsService.name);
  private readonly validator = new ArgumentValidator({ cacheSize: 100 });

  constructor(
    @InjectRepository(RunApprovalEntity) private readonly approvals: Repository<RunApprovalEntity>,
    private readonly runs: RunsService,
    private readonly queries: RunQueriesService,
    private readonly events: RunEventsService,
    @Inject(RUN_SUPERVISOR) private readonly supervisor: RunSupervisor,
    private readonly audit: AuditService,
  ) {}

  /** Records the request the first time; afterwards (a resumed run asks again) returns where it stands. */
  async request(input: ApprovalRequest): Promise<ApprovalState> {
    const key = { runId: input.runId, nodeId: input.nodeId, callId: input.callId.slice(0, 128) };
    const existing = await this.approvals.findOneBy(key);
    if (existing) return stateOf(existing, false);
    const row = this.approvals.create({
      ...key,
      id: randomUUID(),
      toolName: input.toolName.slice(0, 64),
      arguments: input.arguments,
      parameters: input.parameters,
      status: 'pending',
      decidedArguments: null,
      comment: null,
      userId: input.userId,
      decidedBy: null,
      decidedKeyName: null,
      requestedAt: new Date(),
      decidedAt: null,
    });
    try {
      await this.approvals.insert(asRow(row));
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      return stateOf(await this.approvals.findOneByOrFail(key), false);
    }
    return stateOf(row, true);
  }

  /**
   * The run stops for its pending approvals: waiting, without a worker. When every decision came in while it
   * was still stopping, it goes back to running at once (the supervisor that executed it resumes it). `usage` is
   * what the run has used so far: a run that waits for hours shows it meanwhile.
   */
  async wait(runId: string, usage?: UsageTotals): Promise<void> {
    if (!(await this.runs.markWaiting(runId, usage))) return;
    if ((await this.pendingCount(runId)) === 0) await this.runs.resumeWaiting(runId);
  }

  async decide(runId: string, approvalId: string, body: DecideApprovalDto, principal: Principal): Promise<RunResponse> {
    const run = await this.queries.findVisible(runId, principal);
    const approval = await this.approvals.findOneBy({ id: approvalId, runId });
    if (!approval) throw DomainError.notFound('Approval', approvalId);
    if (approval.status !== 'pending') {
      throw DomainError.conflict(`Approval ${approvalId} was already decided (${approval.status})`);
    }
    if (isFinished(run.status)) throw DomainError.conflict(`Run ${runId} has already ended (${run.status})`);
    const approve = body.decision === 'approve';
    if (!approve && body.arguments !== undefined) {
      throw DomainError.validation([{ field: 'arguments', message: 'arguments go with approve, not reject' }]);
    }
    // The reviewer saw the arguments masked: a credential sent back as the mask keeps the model's value.
    const declared = secretArgumentNames(approval.parameters);
    const edited =
      body.arguments === undefined ? null : restoreMaskedArguments(body.arguments, approval.arguments, declared);
    if (approve && edited) this.checkArguments(approval, edited);
    const decidedAt = new Date();
    const changes = {
      status: (approve ? 'approved' : 'rejected') as ApprovalStatus,
      decidedArguments: approve ? edited : null,
      comment: body.comment ?? null,
      decidedBy: principal.userId,
      decidedKeyName: principal.keyName?.slice(0, 128) ?? null,
      decidedAt,
    };
    const result = await this.approvals.update({ id: approvalId, status: 'pending' }, asRow(changes));
    if (result.affected !== 1) throw DomainError.conflict(`Approval ${approvalId} was already decided`);
    await this.audit.record(this.approvals.manager, principal, {
      action: approve ? 'approve' : 'reject',
      type: 'approval',
      id: approvalId,
      name: approval.toolName,
    });
    await this.emit(runId, 'approval.resolved', {
      approval_id: approvalId,
      node_id: approval.nodeId,
      call_id: approval.callId,
      tool: approval.toolName,
      decision: body.decision,
      ...(changes.decidedArguments ? { arguments: maskArguments(changes.decidedArguments, declared) } : {}),
      comment: changes.comment,
      decided_by: principal.userId,
      decided_key_name: changes.decidedKeyName,
    });
    if ((await this.pendingCount(runId)) === 0 && (await this.runs.resumeWaiting(runId))) {
      this.supervisor.resume(runId);
    }
    return this.queries.get(runId, principal);
  }

  /**
   * Approvals of the caller's runs (every run's for admins), newest first. A call nobody decided is `pending` while
   * its run goes on and `cancelled` once the run ended; each filter asks for exactly those.
   */
  async list(query: ListApprovalsQuery, principal: Principal): Promise<Page<ApprovalResponse>> {
    const builder = this.approvals.createQueryBuilder('approval');
    if (!isAdmin(principal)) builder.andWhere('approval.userId = :userId', { userId: principal.userId });
    if (query.status === 'pending' || query.status === 'cancelled') {
      builder.andWhere("approval.status = 'pending'");
      const ended = query.status === 'cancelled' ? 'IN' : 'NOT IN';
      builder.innerJoin(RunEntity, 'run', `run.id = approval.runId AND run.status ${ended} (:...finished)`, {
        finished: FINISHED_STATUSES,
      });
    } else if (query.status) {
      builder.andWhere('approval.status = :status', { status: query.status });
    }
    const [rows, total] = await builder
      .orderBy('approval.requestedAt', 'DESC')
      .addOrderBy('approval.id', 'ASC')
      .skip((query.page - 1) * query.page_size)
      .take(query.page_size)
      .getManyAndCount();
    const runs = await this.runsOf(rows.map((row) => row.runId));
    return {
      items: rows.map((row) => toApprovalResponse(row, runs.get(row.runId) ?? GONE_RUN)),
      page: query.page,
      page_size: query.page_size,
      total,
    };
  }

  /** These runs by id: whether each has ended, and its workflow (the name from the definition it began with). */
  private async runsOf(runIds: string[]): Promise<Map<string, ApprovalRun>> {
    if (runIds.length === 0) return new Map();
    const runs = await this.approvals.manager.find(RunEntity, {
      select: { id: true, status: true, workflowId: true, workflowVersion: true, definition: true },
      where: { id: In([...new Set(runIds)]) },
    });
    return new Map(
      runs.map((run) => [
        run.id,
        {
          ended: isFinished(run.status),
          workflowId: run.workflowId,
          workflowName: typeof run.definition.name === 'string' ? run.definition.name : null,
          workflowVersion: run.workflowVersion,
        },
      ]),
    );
  }

  private pendingCount(runId: string): Promise<number> {
    return this.approvals.countBy({ runId, status: 'pending' });
  }

  /** Edited arguments must pass the schema the model's had to pass: 422 naming each field otherwise. */
  private checkArguments(approval: RunApprovalEntity, value: Record<string, unknown>): void {
    let result;
    try {
      result = this.validator.validate(`${approval.id}`, approval.parameters, value);
    } catch (error) {
      if (!(error instanceof ParametersSchemaError)) throw error;
      throw new DomainError('unprocessable', `The parameters schema of tool ${approval.toolName} cannot be used`);
    }
    if (result.ok) return;
    throw new DomainError(
      'unprocessable',
      `The arguments do not match the parameters of tool ${approval.toolName}`,
      result.errors.map((error) => ({ field: pointerToField('arguments', error.path), message: error.message })),
    );
  }

  /** The run's log is held by this process when it executes (or waits) here; otherwise the event goes to the stored log. */
  private async emit(runId: string, type: RunEventType, data: Record<string, unknown>): Promise<void> {
    try {
      if (this.events.isLive(runId)) {
        this.events.emit(runId, type, data);
        await this.events.flush(runId);
      } else {
        await this.events.appendAndPublish(runId, type, data);
      }
    } catch (error) {
      this.logger.warn({ err: error, runId }, `could not store the ${type} event`);
    }
  }
}
