import type { LimitStopReason } from './stop-reason';

/** How far the loop has gone, as its stop conditions see it after each round of tool calls. */
export interface LoopProgress {
  /** Model calls that requested tools. */
  iterations: number;
  /** Tool calls started (search_tools included). */
  startedToolCalls: number;
  /** Tokens used by the loop's model calls so far. */
  totalTokens: number;
  /** The last round refused a call as one repetition too many (see RepetitionBreaker). */
  stoppedRepetition: boolean;
}

/** A predicate over the loop's progress: the limit that ends the tool phase, or null to go on. */
export type StopCondition = (progress: LoopProgress) => LimitStopReason | null;

/** Stops once a round refused a call as one repetition too many. */
export const repetitionStops: StopCondition = ({ stoppedRepetition }) => (stoppedRepetition ? 'repetition' : null);

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

export const DEFAULT_MAX_ITERATIONS = 5;
export const MAX_ITERATIONS_CAP = 50;

/** `maxIterations` as the loop applies it: default 5, clamped to 1..50. */
export const clampIterations = (value: number | undefined): number =>
  value === undefined || !Number.isFinite(value)
    ? DEFAULT_MAX_ITERATIONS
    : Math.min(MAX_ITERATIONS_CAP, Math.max(1, Math.floor(value)));

/**
 * When a loop's tool phase ends, checked after each round in this order: a call refused as a repetition, the
 * budgets the options set (tool calls, tokens), then the step count (`maxIterations`, clamped).
 */
export function loopStopConditions(options: {
  maxToolCalls?: number;
  maxTotalTokens?: number;
  maxIterations: number;
}): StopCondition[] {
  const { maxToolCalls, maxTotalTokens, maxIterations } = options;
  return [
    repetitionStops,
    ...(maxToolCalls === undefined ? [] : [toolCallCountIs(maxToolCalls)]),
    ...(maxTotalTokens === undefined ? [] : [totalTokensReach(maxTotalTokens)]),
    stepCountIs(maxIterations),
  ];
}

/** The reason of the first condition that holds, in the order given; null when none does. */
export function firstStop(conditions: readonly StopCondition[], progress: LoopProgress): LimitStopReason | null {
  for (const condition of conditions) {
    const reason = condition(progress);
    if (reason !== null) return reason;
  }
  return null;
}
