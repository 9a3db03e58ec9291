import {
  exchangeKey,
  maskRequest,
  maskResponse,
  secretArgumentsOf,
  type ModelExchange,
} from '../../llm/model-exchange';
import type { ChatCallOptions, ChatProvider, ChatRequest, ChatResponse } from '../../llm/provider';
import type { ModelCalls } from './model-calls';

/** Where a run's exchanges go, one at a time (the runs module stores them). */
export type ExchangeSink = (exchange: ModelExchange) => Promise<void>;

/**
 * ModelCalls of a run that is recorded: each answered call is handed to the sink masked, in the background;
 * `flush` waits for every one handed so far. A failed write is reported to `onError`, never to the run.
 */
export class RecordingModelCalls implements ModelCalls {
  readonly #counts: Map<string, number>;
  readonly #pending = new Set<Promise<void>>();

  constructor(
    private readonly sink: ExchangeSink,
    private readonly onError: (error: unknown) => void,
    /** Calls each node made before in each item, by exchangeKey (a resumed run): the next index is after them. */
    callsBefore: ReadonlyMap<string, number> = new Map(),
  ) {
    this.#counts = new Map(callsBefore);
  }

  provider(nodeId: string, provider: ChatProvider, item = ''): ChatProvider {
    const key = exchangeKey(nodeId, item);
    const chat = async (request: ChatRequest, options?: ChatCallOptions): Promise<ChatResponse> => {
      const callIndex = this.#counts.get(key) ?? 0;
      this.#counts.set(key, callIndex + 1);
      const started = performance.now();
      const response = await provider.chat(request, options);
      this.#store({
        nodeId,
        item,
        callIndex,
        provider: provider.name,
        model: request.model,
        request: maskRequest(request),
        response: maskResponse(response, secretArgumentsOf(request)),
        durationMs: performance.now() - started,
      });
      return response;
    };
    return {
      name: provider.name,
      chat,
      outputTokens: (request) => provider.outputTokens?.(request),
    };
  }

  async flush(): Promise<void> {
    await Promise.all([...this.#pending]);
  }

  #store(exchange: ModelExchange): void {
    const stored = this.sink(exchange).catch(this.onError);
    this.#pending.add(stored);
    void stored.finally(() => this.#pending.delete(stored));
  }
}
