import { parseRetryAfter } from '../shared/backoff';
import { errorMessage } from '../shared/error-text';
import { retry } from '../shared/retry';
import type { Sleep } from '../shared/sleep';
import { ProviderError } from './provider';

/** A transient provider failure; `retryAfterMs` is what the provider asked for (Retry-After), if anything. */
export class RetryableProviderError extends ProviderError {
  constructor(
    message: string,
    status: number | null,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message, status, true);
  }
}

export interface RetryOptions {
  /** Retries after the first attempt. Default 3. */
  maxRetries?: number;
  /** First backoff ceiling; doubles each retry. Default 500 ms. */
  baseDelayMs?: number;
  /** Ceiling of the exponential backoff. Default 8 s. */
  maxDelayMs?: number;
  /** A provider's Retry-After longer than this is cut down to it. Default 30 s. */
  maxRetryAfterMs?: number;
  sleep?: Sleep;
  /** Jitter source in [0, 1). */
  random?: () => number;
}

export interface RetryAttempt {
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  reason: string;
}

export interface WithRetryOptions extends RetryOptions {
  signal?: AbortSignal;
  onRetry?: (retry: RetryAttempt) => void;
}

export const DEFAULT_MAX_RETRIES = 3;

/**
 * Runs `operation` until it succeeds, throws something that is not a retryable `ProviderError`,
 * or the retries run out (the last error is thrown). Waits back off exponentially with full jitter, unless
 * the provider said how long to wait. Cancellation rejects at once with `signal.reason`, during an attempt
 * (the operation is expected to honour the signal) as well as during the backoff.
 */
export async function withRetry<T>(
  operation: (attempt: number) => Promise<T>,
  options: WithRetryOptions = {},
): Promise<T> {
  const { signal, onRetry } = options;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 30_000;
  return retry(
    async (attempt) => {
      signal?.throwIfAborted();
      try {
        return await operation(attempt);
      } catch (error) {
        signal?.throwIfAborted();
        throw error;
      }
    },
    {
      retries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      retryError: (error) => error instanceof ProviderError && error.retryable,
      retryAfterMs: (failure) => {
        const retryAfterMs =
          'error' in failure && failure.error instanceof RetryableProviderError ? failure.error.retryAfterMs : null;
        return retryAfterMs === null ? null : Math.max(0, Math.min(retryAfterMs, maxRetryAfterMs));
      },
      backoff: {
        baseDelayMs: options.baseDelayMs ?? 500,
        maxDelayMs: options.maxDelayMs ?? 8_000,
        random: options.random,
      },
      signal,
      sleep: options.sleep,
      onRetry:
        onRetry &&
        (({ retry: attempt, delayMs, failure }) =>
          onRetry({ attempt, delayMs, reason: errorMessage('error' in failure ? failure.error : undefined) })),
    },
  );
}

/** Reads `retry-after-ms` (non-standard, sent by OpenAI) or `Retry-After` (seconds or an HTTP date). */
export function retryAfterFromHeaders(headers: Headers | undefined, now: () => number = Date.now): number | null {
  const milliseconds = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  return parseRetryAfter(headers?.get('retry-after'), now());
}
