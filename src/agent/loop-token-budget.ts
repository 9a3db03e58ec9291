import type { ChatProvider, ChatRequest } from '../llm/provider';
import type { RunTokenBudget } from './agent-loop-options';
import { DEFAULT_RESERVED_OUTPUT_TOKENS } from './fit-context';
import type { RequestTokenCounter } from './request-tokens';
import { decideTokenBudget, NodeTokenBudgetRefusal } from './token-budget';

export interface LoopTokenBudgetOptions {
  /** The node's own `max_total_tokens`. */
  maxTotalTokens?: number;
  /** The run's budget (its RunMeter). */
  runTokens?: RunTokenBudget;
  provider: Pick<ChatProvider, 'outputTokens'>;
  /** Tokens the node's model calls have used so far. */
  used: () => number;
  tokens: RequestTokenCounter;
  /** Throws the loop's abort reason once its signal aborted (the run's budget refusing a call aborts it). */
  throwIfAborted: () => void;
}

/**
 * The node's and the run's token budgets as one agent loop applies them before each model call: a request is sent
 * with its output capped to what they leave after its prompt, or not at all. With neither set, requests go out
 * unchanged and nothing is counted.
 */
export class LoopTokenBudget {
  constructor(private readonly options: LoopTokenBudgetOptions) {}

  /**
   * The request capped to the budgets. A call they cannot hold is not made: the run's budget ends the run
   * (`refuse` aborts the loop's signal), the node's throws NodeTokenBudgetRefusal.
   */
  forCall(request: ChatRequest): ChatRequest {
    const budget = this.decide(request);
    if (budget === null) return request;
    const { decision, nodeLeft, runLeft, addedOutputTokens } = budget;
    if (decision.action === 'send') return { ...request, maxTokens: decision.maxTokens };
    const { maxTotalTokens, runTokens } = this.options;
    if (runTokens && runLeft !== undefined && runLeft <= (nodeLeft ?? Infinity)) {
      runTokens.refuse(decision.promptTokens, addedOutputTokens);
      this.options.throwIfAborted();
    }
    throw new NodeTokenBudgetRefusal(maxTotalTokens ?? 0, decision, addedOutputTokens);
  }

  /** A summary request capped to the budgets; null when they cannot hold it: the result is cut instead. */
  forSummary(request: ChatRequest): ChatRequest | null {
    const decision = this.decide(request)?.decision;
    if (decision === undefined) return request;
    return decision.action === 'send' ? { ...request, maxTokens: decision.maxTokens } : null;
  }

  /** What the budgets allow `request`; null when neither is set (nothing is counted). */
  private decide(request: ChatRequest) {
    const { maxTotalTokens, runTokens, provider, tokens } = this.options;
    const nodeLeft = maxTotalTokens === undefined ? undefined : maxTotalTokens - this.options.used();
    const runLeft = runTokens?.left();
    if (nodeLeft === undefined && runLeft === undefined) return null;
    const answerTokens = request.maxTokens ?? DEFAULT_RESERVED_OUTPUT_TOKENS;
    const sent = provider.outputTokens?.({ maxTokens: answerTokens, reasoningEffort: request.reasoningEffort });
    const addedOutputTokens = Math.max(0, (sent ?? answerTokens) - answerTokens);
    const tools = request.tools ?? [];
    const decision = decideTokenBudget({
      left: Math.min(nodeLeft ?? Infinity, runLeft ?? Infinity),
      promptBound: tokens.upperBound(request.messages, tools),
      countPrompt: () => tokens.count(request.messages, tools),
      answerTokens,
      addedOutputTokens,
    });
    return { decision, nodeLeft, runLeft, addedOutputTokens };
  }
}
