import { maskRequest, type ModelExchange } from '../../llm/model-exchange';
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
 * ModelCalls that answer every model call from a recording, without contacting any provider: each node's calls
 * are answered in order with the recorded answers, after the request (masked alike) is compared with the
 * recorded one. The first difference stops the node (ReplayDivergedError) and is kept as `divergence`.
 */
export class ReplayModelCalls implements ModelCalls {
  readonly #byNode = new Map<string, ModelExchange[]>();
  readonly #used = new Map<string, number>();
  #divergence: Divergence | null = null;

  constructor(
    exchanges: readonly ModelExchange[],
    private readonly tools: ReplayToolMode,
  ) {
    for (const exchange of [...exchanges].sort((a, b) => a.callIndex - b.callIndex)) {
      const list = this.#byNode.get(exchange.nodeId) ?? [];
      list.push(exchange);
      this.#byNode.set(exchange.nodeId, list);
    }
  }

  /**
   * The first divergence: one met during the replay, else a recorded call the replay never made (the first
   * such, in node order of the recording); null when the replay made exactly the recorded calls.
   */
  get divergence(): Divergence | null {
    if (this.#divergence) return this.#divergence;
    for (const [nodeId, recorded] of this.#byNode) {
      const used = this.#used.get(nodeId) ?? 0;
      if (used < recorded.length) {
        return {
          kind: 'missing_call',
          node_id: nodeId,
          call_index: used,
          expected: recorded[used].request.messages.length,
          description: `node "${nodeId}" made ${used} model calls; the recording has ${recorded.length}`,
        };
      }
    }
    return null;
  }

  provider(nodeId: string, configured: ChatProvider): ChatProvider {
    const chat = (request: ChatRequest, options?: ChatCallOptions): Promise<ChatResponse> => {
      const callIndex = this.#used.get(nodeId) ?? 0;
      this.#used.set(nodeId, callIndex + 1);
      const recorded = this.#byNode.get(nodeId)?.[callIndex];
      const at = { node_id: nodeId, call_index: callIndex };
      const divergence = recorded
        ? requestDivergence(at, recorded.request, maskRequest(request))
        : {
            ...at,
            kind: 'extra_call' as const,
            description: `node "${nodeId}" made model call ${callIndex}, which the recording does not have`,
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

  recordedToolResult(nodeId: string, call: ToolCall): { content: string; isError: boolean } | undefined {
    if (this.tools === 'live') return undefined;
    for (const exchange of this.#byNode.get(nodeId) ?? []) {
      for (const message of exchange.request.messages) {
        if (message.role === 'tool' && message.tool_call_id === call.id) {
          return { content: message.content, isError: message.is_error === true };
        }
      }
    }
    return undefined;
  }
}
