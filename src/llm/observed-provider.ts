import { inSpan, SpanKind } from '../common/tracing';
import type { TokenUsage } from '../shared/chat-types';
import { errorMessage } from '../shared/error-text';
import type { ChatCallOptions, ChatProvider, ChatRequest, ChatResponse } from './provider';

/** One finished model call, as metrics see it. */
export interface ModelCallRecord {
  provider: string;
  model: string;
  outcome: 'success' | 'error';
  durationMs: number;
  /** Null when the call failed. */
  usage: TokenUsage | null;
  /** Why the call failed (the provider's error message), when it did. */
  error?: string;
}

/** Told of every model call of every provider (the port metrics use); must not throw. */
export type ModelCallListener = (record: ModelCallRecord) => void;

/**
 * A provider whose calls are traced (a `chat {model}` span with the GenAI semantic-convention
 * attributes) and reported to listeners. `gen_ai.system`/`gen_ai.provider.name` carry the configured
 * provider name: every provider speaks the OpenAI protocol, the name tells which endpoint it is.
 */
export class ObservedProvider implements ChatProvider {
  constructor(
    private readonly inner: ChatProvider,
    private readonly listeners: ReadonlySet<ModelCallListener>,
  ) {}

  get name(): string {
    return this.inner.name;
  }

  outputTokens(request: Pick<ChatRequest, 'maxTokens' | 'reasoningEffort'>): number | undefined {
    return this.inner.outputTokens?.(request);
  }

  chat(request: ChatRequest, options?: ChatCallOptions): Promise<ChatResponse> {
    const attributes = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': this.inner.name,
      'gen_ai.provider.name': this.inner.name,
      'gen_ai.request.model': request.model,
    };
    return inSpan(`chat ${request.model}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
      const started = performance.now();
      const report = (outcome: ModelCallRecord['outcome'], usage: TokenUsage | null, error?: string) => {
        const record = { provider: this.inner.name, model: request.model, outcome, usage, ...(error && { error }) };
        for (const listener of this.listeners) listener({ ...record, durationMs: performance.now() - started });
      };
      let response: ChatResponse;
      try {
        response = await this.inner.chat(request, options);
      } catch (error) {
        report('error', null, errorMessage(error));
        throw error;
      }
      report('success', response.usage);
      span.setAttributes({
        'gen_ai.usage.input_tokens': response.usage.promptTokens,
        'gen_ai.usage.output_tokens': response.usage.completionTokens,
        ...(response.finishReason === null ? {} : { 'gen_ai.response.finish_reasons': [response.finishReason] }),
      });
      return response;
    });
  }
}
