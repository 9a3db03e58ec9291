import { addCosts, type Cost } from '../llm/model-prices';
import type { UsageTotals } from './run.entity';

export const emptyUsage = (): UsageTotals => ({
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  model_calls: 0,
});

/**
 * Adds `usage` (a node output's, a child run's; missing fields count 0) to `total`, in place. Costs add up while
 * both are known; one unknown (null) cost makes the total unknown; an absent one adds nothing.
 */
export function addUsage(total: UsageTotals, usage: Partial<UsageTotals> | undefined): void {
  if (!usage) return;
  total.prompt_tokens += usage.prompt_tokens ?? 0;
  total.completion_tokens += usage.completion_tokens ?? 0;
  total.total_tokens += usage.total_tokens ?? 0;
  total.model_calls += usage.model_calls ?? 0;
  if (usage.cost !== undefined) total.cost = total.cost === undefined ? usage.cost : addCosts([total.cost, usage.cost]);
}

/**
 * What a run's (or a node's) usage cost as the API shows it: nothing when it made no model call, null when a call
 * had no known price or the record predates costs.
 */
export function costOfUsage(usage: UsageTotals): Cost | null {
  if (usage.cost !== undefined) return usage.cost;
  return usage.model_calls === 0 ? { amount: 0, currency: 'USD' } : null;
}
