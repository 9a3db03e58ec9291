import type OpenAI from 'openai';
import { createOpenAIClient } from './openai-client';
import { toProviderError } from './openai-error';
import type { ProviderError } from './provider';
import { StreamingProvider, type ProviderOptions } from './streaming-provider';

/** What the Chat Completions and Responses adapters share: one official OpenAI client and its error mapping. */
export abstract class OpenAISdkProvider<Body> extends StreamingProvider<Body> {
  // Private field (#) so neither JSON.stringify nor util.inspect can show the API key the client holds.
  readonly #client: OpenAI;

  constructor(options: ProviderOptions) {
    super(options);
    this.#client = createOpenAIClient(options);
  }

  protected get client(): OpenAI {
    return this.#client;
  }

  protected toProviderError(error: unknown): ProviderError {
    return toProviderError(error, this.now);
  }
}
