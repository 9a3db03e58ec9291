export const AGENT_STOP_REASONS = [
  'answered',
  'max_tokens',
  'refusal',
  'max_iterations',
  'budget_tokens',
  'budget_tool_calls',
  'timeout',
  'repetition',
  'cancelled',
  'error',
] as const;

/** Why the agent loop ended. */
export type AgentStopReason = (typeof AGENT_STOP_REASONS)[number];

/** Limits that end the tool phase early; the loop then asks for (or explains the lack of) a final answer. */
export type LimitStopReason = Extract<
  AgentStopReason,
  'max_iterations' | 'budget_tokens' | 'budget_tool_calls' | 'timeout' | 'repetition'
>;

const LIMIT_DESCRIPTIONS: Record<LimitStopReason, string> = {
  max_iterations: 'the maximum number of tool-using steps was reached',
  budget_tokens: 'the token budget was used up',
  budget_tool_calls: 'the tool call budget was used up',
  timeout: 'the time limit was reached',
  repetition: 'the same tool call kept being repeated',
};

/** A clause that completes "… because <clause>". */
export const describeLimit = (reason: LimitStopReason): string => LIMIT_DESCRIPTIONS[reason];

/**
 * Why a final answer ended, from the provider's finish reason (every adapter reports OpenAI's names): cut at the
 * output token limit (`length`: Anthropic `max_tokens`, Responses `max_output_tokens`) or refused
 * (`content_filter`: Anthropic `refusal`), else answered.
 */
export const answerStopReason = (finishReason: string | null): AgentStopReason => {
  if (finishReason === 'length') return 'max_tokens';
  if (finishReason === 'content_filter') return 'refusal';
  return 'answered';
};
