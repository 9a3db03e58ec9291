import { parseRetryAfter } from '../../shared/backoff';

export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
/** No single wait, whatever Retry-After asks for, is longer than this. */
export const MAX_RETRY_WAIT_MS = 20_000;

/** Retry-After as milliseconds, capped at MAX_RETRY_WAIT_MS; null when absent or unreadable. */
export const cappedRetryAfter = (header: string | undefined, now = Date.now()): number | null => {
  const ms = parseRetryAfter(header, now);
  return ms === null ? null : Math.min(ms, MAX_RETRY_WAIT_MS);
};
