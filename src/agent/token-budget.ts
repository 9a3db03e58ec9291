/** The smallest answer a call is made for: a short reply or one small tool call. */
export const MIN_ANSWER_TOKENS = 32;

export interface TokenBudgetInput {
  /** Tokens the tightest budget (the node's, the run's, a parent run's) leaves. */
  left: number;
  /** At least the prompt's tokens, cheap to get (its UTF-8 bytes). */
  promptBound: number;
  /** The prompt's tokens counted; asked only when `promptBound` does not settle the decision. */
  countPrompt: () => number;
  /** The most the answer may use without a budget: the node's `max_tokens`, else the default. */
  answerTokens: number;
  /** Output tokens the protocol adds to the `max_tokens` it is given (Anthropic's thinking budget). */
  addedOutputTokens: number;
}

export type TokenBudgetDecision =
  | { action: 'send'; maxTokens: number }
  | { action: 'refuse'; promptTokens: number; left: number; neededTokens: number };

/**
 * What a model call may use within the budget left: refused when the prompt plus the protocol's added output plus
 * MIN_ANSWER_TOKENS do not fit, else `maxTokens` capped so that prompt and answer together stay within it. The
 * prompt is counted only when its bound leaves less than `answerTokens`.
 */
export function decideTokenBudget(input: TokenBudgetInput): TokenBudgetDecision {
  const { left, promptBound, answerTokens, addedOutputTokens } = input;
  if (promptBound + addedOutputTokens + answerTokens <= left) return { action: 'send', maxTokens: answerTokens };
  const promptTokens = input.countPrompt();
  const room = left - promptTokens - addedOutputTokens;
  if (room < MIN_ANSWER_TOKENS) {
    return { action: 'refuse', promptTokens, left, neededTokens: promptTokens + addedOutputTokens + MIN_ANSWER_TOKENS };
  }
  return { action: 'send', maxTokens: Math.min(answerTokens, room) };
}

/** What a refused call needs, for its error: "its prompt alone needs about N tokens, plus …". */
export const callNeeds = (promptTokens: number, addedOutputTokens: number): string =>
  `its prompt alone needs about ${promptTokens} tokens, plus ` +
  (addedOutputTokens > 0 ? `${addedOutputTokens} for the thinking budget and ` : '') +
  `at least ${MIN_ANSWER_TOKENS} for an answer`;

/** A model call the node's own `max_total_tokens` cannot hold: not made. */
export class NodeTokenBudgetRefusal extends Error {
  constructor(max: number, decision: Extract<TokenBudgetDecision, { action: 'refuse' }>, addedOutputTokens: number) {
    super(
      `The next model call does not fit the node's budget of ${max} tokens (max_total_tokens): ` +
        `${callNeeds(decision.promptTokens, addedOutputTokens)}, and ${Math.max(0, decision.left)} are left.`,
    );
    this.name = 'NodeTokenBudgetRefusal';
  }
}
