import { Injectable } from '@nestjs/common';
import { ToolCallLogsService } from '../call-logs/tool-call-logs.service';
import { RunUsageService } from '../runs/run-usage.service';
import { ToolsService } from '../tools/tools.service';

/**
 * The counts quotas and GET /usage share, each read from stored rows (runs, model exchanges, tool call logs),
 * never from a counter in memory: they survive restarts and agree across processes.
 */
@Injectable()
export class QuotaUsage {
  constructor(
    private readonly runs: RunUsageService,
    private readonly callLogs: ToolCallLogsService,
    private readonly tools: ToolsService,
  ) {}

  runsInProgress(userId: string): Promise<number> {
    return this.runs.runsInProgress(userId);
  }

  runsCreatedSince(userId: string, from: Date): Promise<number> {
    return this.runs.runsCreatedSince(userId, from);
  }

  /** Tokens of the user's model calls in [from, to). */
  async tokens(userId: string, from: Date, to: Date): Promise<number> {
    const rows = await this.runs.modelUsage({ userId, from, to }, 'model');
    return rows.reduce((sum, row) => sum + row.totalTokens, 0);
  }

  /** What the user's model calls in [from, to) cost in `currency` (calls priced in another one or unpriced do not count). */
  async cost(userId: string, currency: string, from: Date, to: Date): Promise<number> {
    const rows = await this.runs.modelUsage({ userId, from, to }, 'model');
    const nanos = rows
      .filter((row) => !row.mixedCurrencies && row.currency === currency)
      .reduce((sum, row) => sum + row.costNanos, 0);
    return nanos / 1e9;
  }

  /** CPU seconds of code-tool calls by `userId` (everyone: null) in [from, to), per UTC day. */
  async codeSecondsByDay(userId: string | null, from: Date, to: Date): Promise<Map<string, number>> {
    const codeTools = await this.tools.findByImplementationType('code');
    const byDay = await this.callLogs.cpuMsByDay(
      userId,
      codeTools.map((tool) => tool.id),
      from,
      to,
    );
    return new Map([...byDay].map(([day, ms]) => [day, Math.round(ms) / 1000]));
  }
}
