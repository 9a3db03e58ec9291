import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, IsNull, MoreThanOrEqual, Repository } from 'typeorm';
import { ModelExchangeEntity } from './model-exchange.entity';
import { IN_PROGRESS_STATUSES, RunEntity } from './run.entity';

/** What grouped usage is grouped by. */
export type UsageGrouping = 'day' | 'workflow' | 'model';

/** One group of model calls: its key (a UTC day, a workflow id or `provider/model`) and what the calls used. */
export interface ModelUsageRow {
  key: string;
  runs: number;
  modelCalls: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** The priced calls' cost in billionths of `currency`; `unpriced` calls had no known price. */
  costNanos: number;
  currency: string | null;
  /** More than one currency among the calls: their cost has no single sum. */
  mixedCurrencies: boolean;
  unpricedCalls: number;
}

/** Whose usage, over which time (`from` inclusive, `to` exclusive); no user: everyone's. */
export interface UsageWindow {
  userId: string | null;
  from: Date;
  to: Date;
}

const dayOf = (value: unknown): string =>
  value instanceof Date ? value.toISOString().slice(0, 10) : String(value).slice(0, 10);

/**
 * The numbers quotas count and GET /usage shows, read from the rows runs already write: runs (a user's top-level
 * runs; workflow-tool child runs are part of their parent) and model_exchanges (every model call, its tokens and
 * cost). Reading stored rows makes the counts survive restarts and agree across api and worker processes.
 */
@Injectable()
export class RunUsageService {
  constructor(
    @InjectRepository(RunEntity) private readonly runs: Repository<RunEntity>,
    @InjectRepository(ModelExchangeEntity) private readonly exchanges: Repository<ModelExchangeEntity>,
  ) {}

  /** The user's runs that have not ended (queued, running or waiting for an approval). */
  runsInProgress(userId: string): Promise<number> {
    return this.runs.countBy({ userId, status: In([...IN_PROGRESS_STATUSES]), parentRunId: IsNull() });
  }

  /** The user's runs created since `from`. */
  runsCreatedSince(userId: string, from: Date): Promise<number> {
    return this.runs.countBy({ userId, createdAt: MoreThanOrEqual(from), parentRunId: IsNull() });
  }

  /** Model calls of the window's runs made in the window, grouped. */
  async modelUsage(window: UsageWindow, grouping: UsageGrouping): Promise<ModelUsageRow[]> {
    const builder = this.exchanges
      .createQueryBuilder('exchange')
      .innerJoin(RunEntity, 'run', 'run.id = exchange.run_id')
      .select('COUNT(DISTINCT exchange.run_id)', 'runs')
      .addSelect('COUNT(*)', 'calls')
      .addSelect('SUM(exchange.prompt_tokens)', 'prompt')
      .addSelect('SUM(exchange.completion_tokens)', 'completion')
      .addSelect('SUM(exchange.total_tokens)', 'total')
      .addSelect('SUM(exchange.cost_nanos)', 'nanos')
      .addSelect('SUM(CASE WHEN exchange.cost_nanos IS NULL THEN 1 ELSE 0 END)', 'unpriced')
      .addSelect('MIN(exchange.cost_currency)', 'firstCurrency')
      .addSelect('MAX(exchange.cost_currency)', 'lastCurrency')
      .where('exchange.created_at >= :from AND exchange.created_at < :to', { from: window.from, to: window.to });
    if (window.userId !== null) builder.andWhere('run.user_id = :userId', { userId: window.userId });
    const keyed =
      grouping === 'day'
        ? builder.addSelect('DATE(exchange.created_at)', 'key').groupBy('DATE(exchange.created_at)')
        : grouping === 'workflow'
          ? builder.addSelect('run.workflow_id', 'key').groupBy('run.workflow_id')
          : builder
              .addSelect('exchange.provider', 'provider')
              .addSelect('exchange.model', 'key')
              .groupBy('exchange.provider')
              .addGroupBy('exchange.model');
    const rows = await keyed.getRawMany<Record<string, unknown>>();
    return rows.map((row) => ({
      key:
        grouping === 'day'
          ? dayOf(row.key)
          : grouping === 'model'
            ? `${String(row.provider)}/${String(row.key)}`
            : ((row.key as string | null) ?? 'inline'),
      runs: Number(row.runs),
      modelCalls: Number(row.calls),
      promptTokens: Number(row.prompt ?? 0),
      completionTokens: Number(row.completion ?? 0),
      totalTokens: Number(row.total ?? 0),
      costNanos: Number(row.nanos ?? 0),
      currency: (row.firstCurrency as string | null) ?? null,
      mixedCurrencies: row.firstCurrency !== row.lastCurrency,
      unpricedCalls: Number(row.unpriced ?? 0),
    }));
  }

  /** The window's top-level runs, by UTC day of creation or by workflow (`inline` for runs of no stored workflow). */
  async runsCreated(window: UsageWindow, grouping: Exclude<UsageGrouping, 'model'>): Promise<Map<string, number>> {
    const expression = grouping === 'day' ? 'DATE(run.created_at)' : 'run.workflow_id';
    const builder = this.runs
      .createQueryBuilder('run')
      .select(expression, 'key')
      .addSelect('COUNT(*)', 'runs')
      .where('run.created_at >= :from AND run.created_at < :to', { from: window.from, to: window.to })
      .andWhere('run.parent_run_id IS NULL');
    if (window.userId !== null) builder.andWhere('run.user_id = :userId', { userId: window.userId });
    const rows = await builder.groupBy(expression).getRawMany<{ key: unknown; runs: unknown }>();
    return new Map(
      rows.map((row) => [
        grouping === 'day' ? dayOf(row.key) : ((row.key as string | null) ?? 'inline'),
        Number(row.runs),
      ]),
    );
  }
}
