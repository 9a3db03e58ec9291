import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import type { Page, PageQuery } from '../common/http/pagination';
import { isAdmin, type Principal } from '../common/auth/principal';
import { isDuplicateKey } from '../common/owned-queries';
import { retryDatabaseWrite } from '../common/retry-database-write';
import { redactJsonText } from '../shared/json-text-redactor';
import type { ToolCallLogResponse } from './tool-call-log.dto';
import { ToolCallLogEntity } from './tool-call-log.entity';
import { bulkInsert, inOrder, insertNewStatement, type Statement } from '../common/plain-sql';
import { truncate } from '../shared/truncate';
import {
  type CallKey,
  type LoggedToolCall,
  toLoggedToolCall,
  type ToolCallListener,
  type ToolCallRecord,
} from './call-record';

/**
 * Arguments as sent, credential arguments masked (see argument-secrets). On the text, without parsing it: any
 * depth is safe, and what is not JSON is logged as it came.
 */
const maskedInput = (input: string): string => redactJsonText(input);

const truncated = (omitted: number): string => `… [truncated ${omitted} chars]`;
const cut = (text: string | null, max: number): string | null =>
  text === null ? null : truncate(text, max, { note: truncated });

export const toToolCallLogResponse = (entity: ToolCallLogEntity): ToolCallLogResponse => ({
  id: entity.id,
  tool_id: entity.toolId,
  tool_name: entity.toolName,
  tool_version: entity.toolVersion,
  run_id: entity.runId,
  node_id: entity.nodeId,
  call_id: entity.callId,
  user_id: entity.userId,
  input: entity.input,
  output: entity.output,
  status: entity.status,
  error_message: entity.errorMessage,
  duration_ms: entity.durationMs,
  cpu_ms: entity.cpuMs,
  repair: entity.repair === null ? null : { kind: entity.repair },
  started_at: entity.startedAt.toISOString(),
  created_at: entity.createdAt.toISOString(),
});

/** Rows of one INSERT that goes with other statements (insert): a run's step makes a few calls. */
const MAX_ROWS_WITH_OTHERS = 100;

/** One row per tool execution, debug or inside a run; inputs and outputs truncated to TOOL_LOG_MAX_CHARS. */
@Injectable()
export class ToolCallLogsService {
  private readonly listeners = new Set<ToolCallListener>();

  constructor(
    @InjectRepository(ToolCallLogEntity) private readonly logs: Repository<ToolCallLogEntity>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Adds a listener for every recorded call; returns its removal. */
  observe(listener: ToolCallListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells the listeners of a call and writes its row. */
  async record(record: ToolCallRecord): Promise<void> {
    this.announce(record);
    await this.insert([record]);
  }

  /** Tells the listeners of a call whose row is written later, with `insert`. */
  announce(record: ToolCallRecord): void {
    for (const listener of this.listeners) listener(record);
  }

  /**
   * Stores the log rows of calls already announced and then sends `after` (statements of other tables that go with
   * them, such as use counts), in one round trip on MySQL/MariaDB (inOrder), retried within `retryBudgetMs` through
   * a database outage: the rows' INSERT keeps a row stored already, so a retry after a lost answer still reaches
   * `after` and writes no duplicate.
   */
  async insert(records: readonly ToolCallRecord[], after: readonly Statement[] = [], retryBudgetMs = 0): Promise<void> {
    if (records.length === 0 && after.length === 0) return;
    const createdAt = new Date();
    const entities = records.map((record) =>
      this.logs.create({ ...this.asStored(record), id: randomUUID(), createdAt }),
    );
    const { manager } = this.logs;
    // A step's calls fit one statement by far; a batch too large for one goes first, on its own.
    const inOne = entities.length <= MAX_ROWS_WITH_OTHERS;
    if (!inOne)
      await retryDatabaseWrite(() => bulkInsert(manager, ToolCallLogEntity, entities), {
        budgetMs: retryBudgetMs,
        alreadyDone: isDuplicateKey,
      });
    const statements = [
      ...(inOne && entities.length > 0 ? [insertNewStatement(manager, ToolCallLogEntity, entities)] : []),
      ...after,
    ];
    await retryDatabaseWrite(() => inOrder(manager, statements), { budgetMs: retryBudgetMs });
  }

  /** A call as its row stores it: arguments with credentials masked, long texts truncated. */
  asStored(record: ToolCallRecord): ToolCallRecord {
    const max = this.config.tools.logMaxChars;
    return {
      ...record,
      input: cut(maskedInput(record.input), max) ?? '',
      output: cut(record.output, max),
      errorMessage: cut(record.errorMessage, 2000),
      cpuMs: record.cpuMs === undefined || record.cpuMs === null ? null : Math.ceil(record.cpuMs),
    };
  }

  /** `onlyUserId` limits the rows to one caller's: users reading a public tool see only their own calls. */
  async listForTool(
    toolId: string,
    onlyUserId: string | null,
    page: number,
    pageSize: number,
  ): Promise<Page<ToolCallLogResponse>> {
    const [entities, total] = await this.logs.findAndCount({
      where: onlyUserId ? { toolId, userId: onlyUserId } : { toolId },
      order: { createdAt: 'DESC' },
      skip: (page - 1) * pageSize,
      take: pageSize,
    });
    return { items: entities.map(toToolCallLogResponse), page, page_size: pageSize, total };
  }

  /** Calls of a tool the principal may see, newest first: its owner and admins see every caller, others their own calls. */
  listVisibleTo(
    tool: { id: string; userId: string | null },
    principal: Principal,
    query: PageQuery,
  ): Promise<Page<ToolCallLogResponse>> {
    const owner = isAdmin(principal) || tool.userId === principal.userId;
    return this.listForTool(tool.id, owner ? null : principal.userId, query.page, query.page_size);
  }

  /** Which calls of a run have a row: node and call id of each (a resumed run's answered calls are matched to them). */
  async loggedCallsOf(runId: string): Promise<CallKey[]> {
    return this.logs.find({ select: { nodeId: true, callId: true }, where: { runId } });
  }

  async listForRun(runId: string): Promise<LoggedToolCall[]> {
    const entities = await this.logs.find({ where: { runId }, order: { startedAt: 'ASC' } });
    return entities.map(toLoggedToolCall);
  }

  /**
   * The CPU time the calls of `toolIds` made by `userId` (everyone's: null) in [from, to) used, in milliseconds
   * per UTC day (`YYYY-MM-DD`): what code-tool quotas count. A call whose CPU time was not measured (logged
   * before it was, or ended before its code ran) counts its duration, which bounds it.
   */
  async cpuMsByDay(userId: string | null, toolIds: readonly string[], from: Date, to: Date) {
    if (toolIds.length === 0) return new Map<string, number>();
    const builder = this.logs
      .createQueryBuilder('log')
      .select('DATE(log.created_at)', 'day')
      .addSelect('SUM(COALESCE(log.cpu_ms, log.duration_ms))', 'ms')
      .where('log.tool_id IN (:...toolIds)', { toolIds: [...toolIds] })
      .andWhere('log.created_at >= :from AND log.created_at < :to', { from, to });
    if (userId !== null) builder.andWhere('log.user_id = :userId', { userId });
    const rows = await builder.groupBy('DATE(log.created_at)').getRawMany<{ day: unknown; ms: unknown }>();
    return new Map(
      rows.map((row) => [
        row.day instanceof Date ? row.day.toISOString().slice(0, 10) : String(row.day).slice(0, 10),
        Number(row.ms ?? 0),
      ]),
    );
  }
}
