import { type BackoffOptions, backoffDelayMs } from './backoff';
import { sleep as defaultSleep, type Sleep } from './sleep';

/** How an attempt that gets another one ended: it threw, or returned a result that counts as a failure. */
export type RetryFailure<T> = { error: unknown } | { result: T };

export interface RetryEvent<T> {
  /** 1 for the first retry. */
  retry: number;
  delayMs: number;
  failure: RetryFailure<T>;
}

export interface RetryOptions<T> {
  /** Most retries after the first attempt; unlimited when omitted (set `budgetMs` then). */
  retries?: number;
  /** How long to keep retrying, counted from the first failure; a wait is cut to what is left of it. */
  budgetMs?: number;
  /** Which thrown errors get another attempt; none when omitted. */
  retryError?: (error: unknown) => boolean;
  /** Results that count as a failure worth another attempt (an HTTP 503); the last one is returned as it is. */
  retryResult?: (result: T) => boolean;
  /** The wait the other side asked for (Retry-After), in ms, used instead of the backoff; null when none. */
  retryAfterMs?: (failure: RetryFailure<T>) => number | null;
  /** Exponential backoff with full jitter between attempts. */
  backoff: BackoffOptions;
  /** Once it aborted, a thrown error is not retried (it is thrown as it is) and a wait rejects with its reason. */
  signal?: AbortSignal;
  /** Told of each retry before its wait (events, logs). */
  onRetry?: (event: RetryEvent<T>) => void;
  sleep?: Sleep;
  now?: () => number;
}

/**
 * Runs `operation` (given the attempt number, 0 first) until it succeeds or a failure is not retried: an
 * error `retryError` does not accept is thrown at once; when the retries or the budget run out, the last
 * error is thrown or the last result returned.
 */
export async function retry<T>(operation: (attempt: number) => Promise<T>, options: RetryOptions<T>): Promise<T> {
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const retries = options.retries ?? Number.POSITIVE_INFINITY;
  let deadline: number | undefined;
  for (let attempt = 0; ; attempt++) {
    let failure: RetryFailure<T>;
    try {
      const result = await operation(attempt);
      if (!options.retryResult?.(result)) return result;
      failure = { result };
    } catch (error) {
      if (!options.retryError?.(error) || options.signal?.aborted) throw error;
      failure = { error };
    }
    const giveUp = (): T => {
      if ('error' in failure) throw failure.error;
      return failure.result;
    };
    if (attempt >= retries) return giveUp();
    let delayMs = options.retryAfterMs?.(failure) ?? backoffDelayMs(attempt, options.backoff);
    if (options.budgetMs !== undefined) {
      deadline ??= now() + options.budgetMs;
      const remaining = deadline - now();
      if (remaining <= 0) return giveUp();
      delayMs = Math.min(remaining, delayMs);
    }
    options.onRetry?.({ retry: attempt + 1, delayMs, failure });
    await sleep(delayMs, options.signal);
  }
}
