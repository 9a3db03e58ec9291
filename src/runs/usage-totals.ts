import type { UsageTotals } from './run.entity';

export const emptyUsage = (): UsageTotals => ({
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  model_calls: 0,
});

/** Adds `usage` (a node output's, a child run's; missing fields count 0) to `total`, in place. */
export function addUsage(total: UsageTotals, usage: Partial<UsageTotals> | undefined): void {
  if (!usage) return;
  total.prompt_tokens += usage.prompt_tokens ?? 0;
  total.completion_tokens += usage.completion_tokens ?? 0;
  total.total_tokens += usage.total_tokens ?? 0;
  total.model_calls += usage.model_calls ?? 0;
}
