import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsStreaming } from '@anthropic-ai/sdk/resources/messages';
import { AnthropicStreamReader, anthropicMaxTokens, toAnthropicBody } from './anthropic-messages';
import { sdkErrorToProviderError } from './openai-error';
import type { ChatRequest, ProviderError } from './provider';
import { readEvents } from './read-events';
import type { StreamedAnswerResult } from './streamed-answer';
import { MAX_TIMER_MS, StreamingProvider, type ProviderAttempt, type ProviderOptions } from './streaming-provider';

/**
 * `ChatProvider` for the Anthropic Messages API (`POST {baseUrl}/v1/messages`, streaming), through the
 * official SDK. 429, 529 `overloaded_error` and other 5xx are retried; an `error` event mid-stream is the
 * provider's own message. A stream that ends without `message_stop` was cut off and is retried.
 */
export class AnthropicProvider extends StreamingProvider<MessageCreateParamsStreaming> {
  // Private field (#) so neither JSON.stringify nor util.inspect can show the API key the client holds.
  readonly #client: Anthropic;

  constructor(options: ProviderOptions) {
    super(options);
    // Everything is passed explicitly so the SDK reads no ANTHROPIC_* variable, profile or config file.
    this.#client = new Anthropic({
      baseURL: options.baseUrl,
      apiKey: options.apiKey ?? 'unused',
      authToken: null,
      defaultHeaders: options.apiKey === undefined ? { 'x-api-key': null, authorization: null } : undefined,
      timeout: MAX_TIMER_MS,
      maxRetries: 0,
      logLevel: 'off',
      openTelemetry: false,
    });
  }

  protected toBody(request: ChatRequest): MessageCreateParamsStreaming {
    return toAnthropicBody(request);
  }

  outputTokens(request: Pick<ChatRequest, 'maxTokens' | 'reasoningEffort'>): number {
    return anthropicMaxTokens(request);
  }

  protected toProviderError(error: unknown): ProviderError {
    return sdkErrorToProviderError(Anthropic, error, this.now);
  }

  protected async stream(body: MessageCreateParamsStreaming, attempt: ProviderAttempt): Promise<StreamedAnswerResult> {
    const events = await this.#client.messages.create(body, { signal: attempt.signal });
    return readEvents(events, new AnthropicStreamReader(), attempt, 'message_stop');
  }
}
