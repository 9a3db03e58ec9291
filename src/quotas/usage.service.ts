import { Inject, Injectable } from '@nestjs/common';
import { isAdmin, type Principal } from '../common/auth/principal';
import type { Port } from '../common/port';
import { DomainError } from '../common/errors/domain-error';
import { type ModelUsageRow, RunUsageService, type UsageWindow } from '../runs/run-usage.service';
import { WORKFLOW_LOOKUP, type WorkflowLookup } from '../runs/workflow-lookup';
import { QuotaUsage } from './quota-usage';
import type { UsageFiguresDto, UsageItemDto, UsageQuery, UsageResponse } from './usage.dto';

const DAY_MS = 86_400_000;
const DEFAULT_SPAN_MS = 30 * DAY_MS;
const MAX_SPAN_MS = 400 * DAY_MS;

const costOf = (row: ModelUsageRow | undefined): UsageFiguresDto['cost'] => {
  if (row === undefined || row.modelCalls === 0) return { amount: 0, currency: 'USD' };
  if (row.unpricedCalls > 0 || row.mixedCurrencies || row.currency === null) return null;
  return { amount: row.costNanos / 1e9, currency: row.currency };
};

const addCost = (total: UsageFiguresDto['cost'], cost: UsageFiguresDto['cost']): UsageFiguresDto['cost'] => {
  if (total === null || cost === null) return null;
  if (cost.amount === 0) return total;
  if (total.amount === 0) return cost;
  if (total.currency !== cost.currency) return null;
  return { amount: Math.round((total.amount + cost.amount) * 1e9) / 1e9, currency: total.currency };
};

/** GET /usage: the caller's (an admin's: any user's) runs, tokens, cost and code seconds, grouped. */
@Injectable()
export class UsageService {
  constructor(
    private readonly runs: RunUsageService,
    private readonly quotaUsage: QuotaUsage,
    @Inject(WORKFLOW_LOOKUP) private readonly workflows: Port<WorkflowLookup>,
  ) {}

  async get(query: UsageQuery, principal: Principal): Promise<UsageResponse> {
    const userId = query.user_id ?? principal.userId;
    if (userId !== principal.userId && !isAdmin(principal)) {
      throw DomainError.forbidden('Only admins read the usage of another user (user_id)');
    }
    const window = this.windowOf(query, userId);
    const grouping = query.group_by ?? 'day';
    const models = await this.runs.modelUsage(window, grouping);
    const byKey = new Map(models.map((row) => [row.key, row]));
    const runs = grouping === 'model' ? null : await this.runs.runsCreated(window, grouping);
    const seconds = await this.quotaUsage.codeSecondsByDay(userId, window.from, window.to);
    const keys = new Set([...byKey.keys(), ...(runs?.keys() ?? []), ...(grouping === 'day' ? seconds.keys() : [])]);
    // By workflow, each stored one is named too (`inline` and a deleted workflow are not).
    const names =
      grouping === 'workflow' ? await this.workflows.get().namesOf([...keys].filter((key) => key !== 'inline')) : null;
    const items: UsageItemDto[] = [...keys].sort().map((key) => {
      const row = byKey.get(key);
      return {
        key,
        name: names?.get(key) ?? null,
        runs: runs === null ? (row?.runs ?? 0) : (runs.get(key) ?? 0),
        model_calls: row?.modelCalls ?? 0,
        prompt_tokens: row?.promptTokens ?? 0,
        completion_tokens: row?.completionTokens ?? 0,
        total_tokens: row?.totalTokens ?? 0,
        cost: costOf(row),
        code_cpu_seconds: grouping === 'day' ? (seconds.get(key) ?? 0) : null,
      };
    });
    const totals: UsageFiguresDto = {
      runs: runs === null ? 0 : [...runs.values()].reduce((sum, count) => sum + count, 0),
      model_calls: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      cost: { amount: 0, currency: 'USD' },
      code_cpu_seconds: Math.round([...seconds.values()].reduce((sum, value) => sum + value, 0) * 1000) / 1000,
    };
    for (const item of items) {
      if (runs === null) totals.runs += item.runs;
      totals.model_calls += item.model_calls;
      totals.prompt_tokens += item.prompt_tokens;
      totals.completion_tokens += item.completion_tokens;
      totals.total_tokens += item.total_tokens;
      totals.cost = addCost(totals.cost, item.cost);
    }
    return {
      user_id: userId,
      from: window.from.toISOString(),
      to: window.to.toISOString(),
      group_by: grouping,
      items,
      totals,
    };
  }

  private windowOf(query: UsageQuery, userId: string): UsageWindow {
    const to = query.to === undefined ? new Date() : new Date(query.to);
    const from = query.from === undefined ? new Date(to.getTime() - DEFAULT_SPAN_MS) : new Date(query.from);
    if (from.getTime() >= to.getTime()) {
      throw DomainError.validation([{ field: 'from', message: 'from must be before to' }]);
    }
    if (to.getTime() - from.getTime() > MAX_SPAN_MS) {
      throw DomainError.validation([{ field: 'from', message: 'from and to may be at most 400 days apart' }]);
    }
    return { userId, from, to };
  }
}
