import { addCosts, type Cost } from '../llm/model-prices';
import type { ChatRequest, ChatResponse, ChatStreamEvent } from '../llm/provider';
import type { TokenUsage } from '../shared/chat-types';
import type { AbortScope } from './abort-scope';
import type { AgentLoopOptions, LoopToolOutcome } from './agent-loop-options';
import type { AgentLoopUsage } from './agent-loop-result';
import type { ContextFitter } from './fit-context';
import type { LoopTokenBudget } from './loop-token-budget';
import { announceRepairedCalls } from './repaired-calls';
import { forwardStreamEvents } from './stream-event-forwarder';

/** What the loop's model calls need of the loop. */
export interface ModelCallsHost<O extends LoopToolOutcome> {
  options: AgentLoopOptions<O>;
  scope: AbortScope;
  budget: LoopTokenBudget;
  fitter: ContextFitter | undefined;
  /** Where the node's prompt is in the history: never left out of a request. */
  taskIndex: number;
}

/**
 * The loop's model calls: each request fitted to the context window and the token budgets, streamed through the
 * hooks, and counted (tokens, cost, reasoning) in the loop's usage.
 */
export class ModelCalls<O extends LoopToolOutcome> {
  readonly usage: AgentLoopUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, modelCalls: 0 };
  readonly reasoning: string[] = [];

  constructor(private readonly host: ModelCallsHost<O>) {}

  /** `runsCalls`: the answer's calls will run, so the calls recovered from its text are announced like streamed ones. */
  async call(request: ChatRequest, runsCalls = false): Promise<ChatResponse> {
    const { options, scope, budget } = this.host;
    scope.throwIfAborted();
    const hooks = options.hooks ?? {};
    const forward = forwardStreamEvents(hooks);
    const streamed = new Set<string>();
    const onEvent = (event: ChatStreamEvent): void => {
      if (event.type === 'tool-call-start') streamed.add(event.id);
      if (event.type === 'retry') streamed.clear();
      forward(event);
    };
    const fitted = budget.forCall(this.fitContext(request));
    const response = await scope.race(options.provider.chat(fitted, { signal: scope.signal, onEvent }));
    const repair = runsCalls ? announceRepairedCalls(response, streamed, hooks) : undefined;
    this.addTokens(response.usage);
    this.usage.modelCalls += 1;
    const cost = this.addCost(response.usage, request.model);
    if (response.reasoning !== '') this.reasoning.push(response.reasoning);
    options.hooks?.onModelCall?.({
      iteration: this.usage.modelCalls,
      usage: response.usage,
      tools: request.tools?.map((tool) => tool.function.name) ?? [],
      ...(cost !== undefined && { cost }),
      ...(repair !== undefined && { repair }),
    });
    return response;
  }

  /** Counts a tool result summary's tokens (and cost) in the loop's usage: not a model call of the loop. */
  countSummary(usage: TokenUsage, model: string): void {
    this.addTokens(usage);
    this.host.options.hooks?.onSummaryUsage?.(usage, this.addCost(usage, model));
  }

  private addTokens(usage: TokenUsage): void {
    this.usage.promptTokens += usage.promptTokens;
    this.usage.completionTokens += usage.completionTokens;
    this.usage.totalTokens += usage.totalTokens;
  }

  /** Adds one call's cost to the loop's (undefined when the loop counts none). */
  private addCost(usage: TokenUsage, model: string): Cost | null | undefined {
    const { costOf } = this.host.options;
    if (costOf === undefined) return undefined;
    const cost = costOf(usage, model);
    this.usage.cost = this.usage.cost === undefined ? cost : addCosts([this.usage.cost, cost]);
    return cost;
  }

  /** The request within the context window; the loop's own history stays whole (see ContextFitter). */
  private fitContext(request: ChatRequest): ChatRequest {
    const { fitter, taskIndex, options } = this.host;
    if (fitter === undefined) return request;
    const { messages, trim } = fitter.fit(request.messages, request.tools ?? [], taskIndex);
    if (trim === null) return request;
    const { contextWindow, reservedTokens } = fitter.limit;
    options.hooks?.onContextTrimmed?.({
      iteration: this.usage.modelCalls + 1,
      contextWindow,
      reservedTokens,
      ...trim,
    });
    return { ...request, messages };
  }
}
