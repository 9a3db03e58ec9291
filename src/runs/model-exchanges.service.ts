import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { retryDatabaseWrite } from '../common/retry-database-write';
import type { ExchangeRequest, ModelExchange } from '../llm/model-exchange';
import type { ChatResponse } from '../llm/provider';
import { ModelExchangeEntity } from './model-exchange.entity';

/** The recorded model calls of runs: written once per answered call (already masked), read back by replays. */
@Injectable()
export class ModelExchangesService {
  constructor(
    @InjectRepository(ModelExchangeEntity) private readonly exchanges: Repository<ModelExchangeEntity>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async append(runId: string, exchange: ModelExchange): Promise<void> {
    const row = {
      id: randomUUID(),
      runId,
      ...exchange,
      request: exchange.request as unknown as Record<string, unknown>,
      response: exchange.response as unknown as Record<string, unknown>,
      durationMs: Math.round(exchange.durationMs),
      createdAt: new Date(),
    };
    await retryDatabaseWrite(() => this.exchanges.insert(row as QueryDeepPartialEntity<ModelExchangeEntity>), {
      budgetMs: this.config.runDbRetryMs,
    });
  }

  /** How many calls each node of the run has recorded: a resumed run numbers its next calls after them. */
  async callsPerNode(runId: string): Promise<Map<string, number>> {
    const rows = await this.exchanges
      .createQueryBuilder('exchange')
      .select('exchange.node_id', 'nodeId')
      .addSelect('MAX(exchange.call_index)', 'last')
      .where('exchange.run_id = :runId', { runId })
      .groupBy('exchange.node_id')
      .getRawMany<{ nodeId: string; last: number | string }>();
    return new Map(rows.map((row) => [row.nodeId, Number(row.last) + 1]));
  }

  /** The run's exchanges in the order they were answered. */
  async list(runId: string): Promise<ModelExchange[]> {
    const rows = await this.exchanges.find({ where: { runId }, order: { createdAt: 'ASC', callIndex: 'ASC' } });
    return rows.map(({ nodeId, callIndex, provider, model, request, response, durationMs }) => ({
      nodeId,
      callIndex,
      provider,
      model,
      request: request as unknown as ExchangeRequest,
      response: response as unknown as ChatResponse,
      durationMs,
    }));
  }
}
