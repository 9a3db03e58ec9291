export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
/** No single wait, whatever Retry-After asks for, is longer than this. */
export const MAX_RETRY_WAIT_MS = 20_000;

/** Retry-After as milliseconds (delta-seconds or an HTTP date), capped; null when absent or unreadable. */
export const parseRetryAfter = (header: string | undefined, now = Date.now()): number | null => {
  if (!header) return null;
  const trimmed = header.trim();
  const ms = /^\d+$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - now;
  if (Number.isNaN(ms)) return null;
  return Math.min(Math.max(ms, 0), MAX_RETRY_WAIT_MS);
};

/** Exponential backoff with full jitter: a random wait up to backoffMs·2^(retry-1). */
export const backoffDelay = (retry: number, backoffMs: number, random: () => number = Math.random): number =>
  Math.floor(random() * Math.min(MAX_RETRY_WAIT_MS, backoffMs * 2 ** (retry - 1)));

/** Resolves after `ms`, or rejects as soon as `signal` aborts. */
export const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted'));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
