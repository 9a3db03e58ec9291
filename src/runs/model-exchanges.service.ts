import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { bulkInsert } from '../common/plain-sql';
import { retryDatabaseWrite } from '../common/retry-database-write';
import { exchangeKey, type ExchangeRequest, type ModelExchange } from '../llm/model-exchange';
import type { ChatResponse } from '../llm/provider';
import { PriceTable } from '../llm/model-prices';
import { ModelExchangeEntity } from './model-exchange.entity';

/** The recorded model calls of runs: written once per answered call (already masked), read back by replays. */
@Injectable()
export class ModelExchangesService {
  constructor(
    @InjectRepository(ModelExchangeEntity) private readonly exchanges: Repository<ModelExchangeEntity>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly prices: PriceTable,
  ) {}

  async append(runId: string, exchange: ModelExchange): Promise<void> {
    const row: ModelExchangeEntity = {
      id: randomUUID(),
      runId,
      ...exchange,
      request: exchange.request as unknown as Record<string, unknown>,
      response: exchange.response as unknown as Record<string, unknown>,
      durationMs: Math.round(exchange.durationMs),
      createdAt: new Date(),
      ...this.usedBy(exchange),
    };
    // Every column is set: the repository's insert would read the defaulted columns back (one SELECT per call).
    await retryDatabaseWrite(() => bulkInsert(this.exchanges.manager, ModelExchangeEntity, [row]), {
      budgetMs: this.config.runDbRetryMs,
    });
  }

  /** What the call used and cost, as the columns usage and quotas sum. */
  private usedBy({ provider, model, response }: ModelExchange) {
    const usage = response.usage;
    const cost = usage ? this.prices.costOf(provider, model, usage) : null;
    return {
      promptTokens: usage?.promptTokens ?? 0,
      completionTokens: usage?.completionTokens ?? 0,
      totalTokens: usage?.totalTokens ?? 0,
      costNanos: cost === null ? null : Math.round(cost.amount * 1e9),
      costCurrency: cost?.currency ?? null,
    };
  }

  /**
   * How many calls each node of the run has recorded in each item, by exchangeKey: a resumed run numbers its next
   * calls after them.
   */
  async callsPerNode(runId: string): Promise<Map<string, number>> {
    const rows = await this.exchanges
      .createQueryBuilder('exchange')
      .select('exchange.node_id', 'nodeId')
      .addSelect('exchange.item', 'item')
      .addSelect('MAX(exchange.call_index)', 'last')
      .where('exchange.run_id = :runId', { runId })
      .groupBy('exchange.node_id')
      .addGroupBy('exchange.item')
      .getRawMany<{ nodeId: string; item: string; last: number | string }>();
    return new Map(rows.map((row) => [exchangeKey(row.nodeId, row.item), Number(row.last) + 1]));
  }

  /** The run's exchanges in the order they were answered. */
  async list(runId: string): Promise<ModelExchange[]> {
    const rows = await this.exchanges.find({ where: { runId }, order: { createdAt: 'ASC', callIndex: 'ASC' } });
    return rows.map(({ nodeId, item, callIndex, provider, model, request, response, durationMs }) => ({
      nodeId,
      item,
      callIndex,
      provider,
      model,
      request: request as unknown as ExchangeRequest,
      response: response as unknown as ChatResponse,
      durationMs,
    }));
  }
}
