import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { retryDatabaseWrite } from '../common/retry-database-write';
import { ToolResultEntity } from './tool-result.entity';

export interface StoredToolResult {
  runId: string;
  nodeId: string;
  callId: string;
  toolName: string;
  content: string;
}

/** Full tool results that were cut for the model, stored once per call and read back by ref within their run. */
@Injectable()
export class ToolResultsService {
  constructor(
    @InjectRepository(ToolResultEntity) private readonly results: Repository<ToolResultEntity>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Stores the text and returns its ref. */
  async store(result: StoredToolResult): Promise<string> {
    const id = randomUUID();
    const row = { id, ...result, chars: result.content.length, createdAt: new Date() };
    await retryDatabaseWrite(() => this.results.insert(row), { budgetMs: this.config.runDbRetryMs });
    return id;
  }

  /** The full text behind `ref`, only for the run that stored it; null otherwise. */
  async read(runId: string, ref: string): Promise<string | null> {
    const row = await this.results.findOne({ where: { id: ref, runId }, select: { content: true } });
    return row?.content ?? null;
  }
}
