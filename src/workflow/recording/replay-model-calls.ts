import { exchangeKey, maskRequest, type ModelExchange } from '../../llm/model-exchange';
import type { ChatCallOptions, ChatProvider, ChatRequest, ChatResponse } from '../../llm/provider';
import type { ToolCall } from '../../shared/tool-types';
import { type Divergence, requestDivergence } from './divergence';
import type { ModelCalls } from './model-calls';

export const REPLAY_TOOL_MODES = ['live', 'recorded'] as const;
/** `live`: tools run; `recorded`: a call gets the result the recording sent the model. */
export type ReplayToolMode = (typeof REPLAY_TOOL_MODES)[number];

/** A replayed call left its recording: the node fails with this, and the replay reports `divergence`. */
export class ReplayDivergedError extends Error {
  constructor(readonly divergence: Divergence) {
    super(`the replay diverged from its recording: ${divergence.description}`);
    this.name = 'ReplayDivergedError';
  }
}

/**
 * ModelCalls that answer every model call from a recording, without contacting any provider: the calls of each
 * node in each map item or loop iteration are answered in order with the recorded answers, after the request
 * (masked alike) is compared with the recorded one. The first difference stops the node (ReplayDivergedError) and
 * is kept as `divergence`. A recording made before items were kept (item '' for a nested node) is answered per
 * node, in the order of the calls, as it was recorded.
 */
export class ReplayModelCalls implements ModelCalls {
  readonly #byKey = new Map<string, ModelExchange[]>();
  /** Nodes recorded only with item '': their calls share one sequence, whatever item makes them. */
  readonly #itemless = new Set<string>();
  readonly #used = new Map<string, number>();
  #divergence: Divergence | null = null;

  constructor(
    exchanges: readonly ModelExchange[],
    private readonly tools: ReplayToolMode,
  ) {
    for (const exchange of [...exchanges].sort((a, b) => a.callIndex - b.callIndex)) {
      const key = exchangeKey(exchange.nodeId, exchange.item);
      const list = this.#byKey.get(key) ?? [];
      list.push(exchange);
      this.#byKey.set(key, list);
    }
    const itemNodes = new Set(exchanges.filter((exchange) => exchange.item !== '').map((exchange) => exchange.nodeId));
    for (const exchange of exchanges) if (!itemNodes.has(exchange.nodeId)) this.#itemless.add(exchange.nodeId);
  }

  /**
   * The first divergence: one met during the replay, else a recorded call the replay never made (the first
   * such, in node order of the recording); null when the replay made exactly the recorded calls.
   */
  get divergence(): Divergence | null {
    if (this.#divergence) return this.#divergence;
    for (const [key, recorded] of this.#byKey) {
      const used = this.#used.get(key) ?? 0;
      if (used < recorded.length) {
        const { nodeId, item } = recorded[used];
        return {
          kind: 'missing_call',
          ...locationOf(nodeId, item, used),
          expected: recorded[used].request.messages.length,
          description: `${nodeName(nodeId, item)} made ${used} model calls; the recording has ${recorded.length}`,
        };
      }
    }
    return null;
  }

  provider(nodeId: string, configured: ChatProvider, item = ''): ChatProvider {
    const key = this.#keyOf(nodeId, item);
    const chat = (request: ChatRequest, options?: ChatCallOptions): Promise<ChatResponse> => {
      const callIndex = this.#used.get(key) ?? 0;
      this.#used.set(key, callIndex + 1);
      const recorded = this.#byKey.get(key)?.[callIndex];
      const at = locationOf(nodeId, this.#itemless.has(nodeId) ? '' : item, callIndex);
      const divergence = recorded
        ? requestDivergence(at, recorded.request, maskRequest(request))
        : {
            ...at,
            kind: 'extra_call' as const,
            description: `${nodeName(nodeId, item)} made model call ${callIndex}, which the recording does not have`,
          };
      if (divergence) {
        this.#divergence ??= divergence;
        return Promise.reject(new ReplayDivergedError(divergence));
      }
      const response = structuredClone((recorded as ModelExchange).response);
      if (response.content !== '') options?.onEvent?.({ type: 'text-delta', delta: response.content });
      response.toolCalls.forEach((call, index) => {
        options?.onEvent?.({ type: 'tool-call-start', index, id: call.id, name: call.name });
        options?.onEvent?.({ type: 'tool-args-delta', index, id: call.id, delta: call.arguments });
      });
      return Promise.resolve(response);
    };
    return { name: configured.name, chat, outputTokens: (request) => configured.outputTokens?.(request) };
  }

  recordedToolResult(nodeId: string, call: ToolCall, item = ''): { content: string; isError: boolean } | undefined {
    if (this.tools === 'live') return undefined;
    for (const exchange of this.#byKey.get(this.#keyOf(nodeId, item)) ?? []) {
      for (const message of exchange.request.messages) {
        if (message.role === 'tool' && message.tool_call_id === call.id) {
          return { content: message.content, isError: message.is_error === true };
        }
      }
    }
    return undefined;
  }

  #keyOf(nodeId: string, item: string): string {
    return exchangeKey(nodeId, this.#itemless.has(nodeId) ? '' : item);
  }
}

const locationOf = (nodeId: string, item: string, callIndex: number) => ({
  node_id: nodeId,
  ...(item === '' ? {} : { item }),
  call_index: callIndex,
});

const nodeName = (nodeId: string, item: string) => `node "${nodeId}"${item === '' ? '' : ` in ${item}`}`;
