import { Ollama } from 'ollama';
import { causeChainMessage } from '../shared/error-text';
import { ProviderError, type ChatRequest } from './provider';
import { OllamaStreamReader, toOllamaBody, type OllamaChatBody } from './ollama-chat';
import { readEvents } from './read-events';
import { RetryableProviderError } from './retry';
import type { StreamedAnswerResult } from './streamed-answer';
import { StreamingProvider, type ProviderAttempt, type ProviderOptions } from './streaming-provider';

const RETRYABLE_STATUSES = new Set([408, 409, 429]);

/**
 * `ChatProvider` for Ollama's native API (`POST {baseUrl}/api/chat`, NDJSON streaming), through the
 * official SDK. Its error texts (e.g. "… does not support tools") reach the node verbatim.
 */
export class OllamaProvider extends StreamingProvider<OllamaChatBody> {
  readonly #apiKey: string | undefined;

  constructor(options: ProviderOptions) {
    super(options);
    this.#apiKey = options.apiKey;
  }

  protected toBody(request: ChatRequest): OllamaChatBody {
    return toOllamaBody(request);
  }

  protected async stream(body: OllamaChatBody, attempt: ProviderAttempt): Promise<StreamedAnswerResult> {
    // A client per attempt: its fetch carries this attempt's signal, which the SDK offers no other way to pass.
    const client = new Ollama({
      host: this.baseUrl,
      headers: this.#apiKey === undefined ? undefined : { Authorization: `Bearer ${this.#apiKey}` },
      fetch: (input, init) => fetch(input, { ...init, signal: attempt.signal }),
    });
    return readEvents(await client.chat(body), new OllamaStreamReader(), attempt, 'its done line');
  }

  protected toProviderError(error: unknown): ProviderError {
    if (error instanceof ProviderError) return error;
    if (error instanceof Error && error.name === 'ResponseError' && 'status_code' in error) {
      const status = typeof error.status_code === 'number' ? error.status_code : 0;
      const text = `provider ${status}: ${error.message}`;
      return RETRYABLE_STATUSES.has(status) || status >= 500
        ? new RetryableProviderError(text, status)
        : new ProviderError(text, status, false);
    }
    if (error instanceof Error && error.message === 'Did not receive done or success response in stream.') {
      return new RetryableProviderError('provider stream ended without its done line', null);
    }
    // The SDK throws a plain Error with the text of an {"error": …} line; the network throws TypeErrors.
    if (error instanceof Error && error.constructor === Error) {
      return new RetryableProviderError(`provider stream error: ${error.message}`, null);
    }
    return new RetryableProviderError(`provider connection lost: ${causeChainMessage(error)}`, null);
  }
}
