import type { LimitStopReason } from './stop-reason';

/** How far the loop has gone, as its stop conditions see it after each round of tool calls. */
export interface LoopProgress {
  /** Model calls that requested tools. */
  iterations: number;
  /** Tool calls started (search_tools included). */
  startedToolCalls: number;
  /** Tokens used by the loop's model calls so far. */
  totalTokens: number;
}

/** A predicate over the loop's progress: the limit that ends the tool phase, or null to go on. */
export type StopCondition = (progress: LoopProgress) => LimitStopReason | null;

/** Stops after `max` model calls that requested tools. */
export const stepCountIs =
  (max: number): StopCondition =>
  ({ iterations }) =>
    iterations >= max ? 'max_iterations' : null;

/** Stops once `max` tool calls have started. */
export const toolCallCountIs =
  (max: number): StopCondition =>
  ({ startedToolCalls }) =>
    startedToolCalls >= max ? 'budget_tool_calls' : null;

/** Stops once the loop's model calls used `max` tokens. */
export const totalTokensReach =
  (max: number): StopCondition =>
  ({ totalTokens }) =>
    totalTokens >= max ? 'budget_tokens' : null;

/** The reason of the first condition that holds, in the order given; null when none does. */
export function firstStop(conditions: readonly StopCondition[], progress: LoopProgress): LimitStopReason | null {
  for (const condition of conditions) {
    const reason = condition(progress);
    if (reason !== null) return reason;
  }
  return null;
}
