export interface BackoffOptions {
  /** Ceiling of the first wait; doubles on each retry. */
  baseDelayMs: number;
  /** The ceiling never grows past this. */
  maxDelayMs: number;
  /** Jitter source in [0, 1). Default Math.random. */
  random?: () => number;
}

/** Exponential backoff with full jitter: a random wait below min(maxDelayMs, baseDelayMs·2^retryIndex); 0 is the first retry. */
export const backoffDelayMs = (retryIndex: number, options: BackoffOptions): number =>
  Math.floor((options.random ?? Math.random)() * Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retryIndex));

/** A Retry-After value as milliseconds: delta-seconds or an HTTP date (past dates give 0); null when absent or unreadable. */
export const parseRetryAfter = (value: string | null | undefined, now: number = Date.now()): number | null => {
  const trimmed = value?.trim();
  if (!trimmed) return null;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number.parseFloat(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
};
