import { Ollama } from 'ollama';
import type OpenAI from 'openai';
import { errorMessage } from '../shared/error-text';
import { createOpenAIClient } from './openai-client';
import { ProviderError } from './provider';
import { RetryableProviderError, withRetry } from './retry';
import type { ProviderOptions } from './streaming-provider';

/** Time one embeddings request may take when the provider sets no `timeout_ms`. */
const DEFAULT_EMBEDDINGS_TIMEOUT_MS = 60_000;

/** A provider's embeddings endpoint: one vector per text, in the order of the texts. */
export interface EmbeddingProvider {
  embed(model: string, texts: readonly string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
}

/** Thrown for a provider whose protocol has no embeddings API (Anthropic). */
export class EmbeddingsUnsupportedError extends Error {
  readonly code = 'EMBEDDINGS_UNSUPPORTED';

  constructor(
    readonly providerName: string,
    readonly protocol: string,
  ) {
    super(`provider "${providerName}" speaks ${protocol}, which has no embeddings API`);
    this.name = 'EmbeddingsUnsupportedError';
  }
}

type EmbeddingOptions = Pick<ProviderOptions, 'name' | 'baseUrl' | 'apiKey' | 'timeoutMs' | 'retry'>;
const RETRYABLE_STATUSES = new Set([408, 409, 429]);

/**
 * One embeddings call: each attempt within the provider's time limit, transient failures (connection lost,
 * e.g. a pooled connection the server closed; 408/409/429/5xx) retried with the provider's backoff.
 */
function attempts<T>(
  options: EmbeddingOptions,
  signal: AbortSignal | undefined,
  attempt: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  return withRetry(
    async () => {
      const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_EMBEDDINGS_TIMEOUT_MS);
      try {
        return await attempt(signal === undefined ? timeout : AbortSignal.any([signal, timeout]));
      } catch (error) {
        throw toEmbeddingsError(error);
      }
    },
    { ...options.retry, signal },
  );
}

const checkCount = (vectors: number[][], texts: readonly string[]): number[][] => {
  if (vectors.length !== texts.length || vectors.some((vector) => !Array.isArray(vector) || vector.length === 0)) {
    throw new ProviderError(`embeddings: ${texts.length} texts sent, ${vectors.length} vectors received`, null, false);
  }
  return vectors;
};

/** `POST {base}/embeddings` through the official SDK (which asks for base64 and decodes it). */
export class OpenAIEmbeddings implements EmbeddingProvider {
  readonly #client: OpenAI;

  constructor(private readonly options: EmbeddingOptions) {
    this.#client = createOpenAIClient(options);
  }

  async embed(model: string, texts: readonly string[], { signal }: { signal?: AbortSignal } = {}): Promise<number[][]> {
    return attempts(this.options, signal, async (attemptSignal) => {
      const response = await this.#client.embeddings.create({ model, input: [...texts] }, { signal: attemptSignal });
      const vectors: number[][] = [];
      for (const item of response.data) vectors[item.index] = item.embedding;
      return checkCount(vectors, texts);
    });
  }
}

/** Ollama's `POST {base}/api/embed` through the official SDK. */
export class OllamaEmbeddings implements EmbeddingProvider {
  readonly #apiKey: string | undefined;

  constructor(private readonly options: EmbeddingOptions) {
    this.#apiKey = options.apiKey;
  }

  async embed(model: string, texts: readonly string[], { signal }: { signal?: AbortSignal } = {}): Promise<number[][]> {
    return attempts(this.options, signal, async (attemptSignal) => {
      // A client per attempt: its fetch carries this attempt's signal, which the SDK offers no other way to pass.
      const client = new Ollama({
        host: this.options.baseUrl,
        headers: this.#apiKey === undefined ? undefined : { Authorization: `Bearer ${this.#apiKey}` },
        fetch: (input, init) => fetch(input, { ...init, signal: attemptSignal }),
      });
      const response = await client.embed({ model, input: [...texts] });
      return checkCount(response.embeddings, texts);
    });
  }
}

function toEmbeddingsError(error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  const status =
    typeof error === 'object' && error !== null && 'status' in error && typeof error.status === 'number'
      ? error.status
      : typeof error === 'object' && error !== null && 'status_code' in error && typeof error.status_code === 'number'
        ? error.status_code
        : null;
  const message = `${status === null ? 'embeddings' : `embeddings ${status}`}: ${errorMessage(error, { descriptive: true })}`;
  return status === null || RETRYABLE_STATUSES.has(status) || status >= 500
    ? new RetryableProviderError(message, status)
    : new ProviderError(message, status, false);
}
