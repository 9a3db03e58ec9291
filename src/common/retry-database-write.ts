import { DatabaseUnavailableError, isDatabaseUnavailable } from './errors/database-unavailable';
import { backoffDelayMs } from '../shared/backoff';
import { errorMessage } from '../shared/error-text';
import { sleep as defaultSleep, type Sleep } from '../shared/sleep';

export interface DatabaseWriteRetryOptions {
  /** Total time to keep retrying after the first failure; then DatabaseUnavailableError. */
  budgetMs: number;
  /**
   * An error on a retry that means the earlier attempt went through after all (e.g. a duplicate key
   * when the connection died after the commit but before the answer).
   */
  alreadyDone?: (error: unknown) => boolean;
  sleep?: Sleep;
  now?: () => number;
}

const BASE_DELAY_MS = 100;
const MAX_DELAY_MS = 2_000;

/**
 * Runs a write until it succeeds, retrying with backoff while the database is unavailable (connection
 * errors only; any other error is thrown at once) for up to `budgetMs`.
 */
export async function retryDatabaseWrite<T>(
  write: () => Promise<T>,
  options: DatabaseWriteRetryOptions,
): Promise<T | undefined> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  let deadline: number | null = null;
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt > 0 && options.alreadyDone?.(error)) return undefined;
      if (!isDatabaseUnavailable(error)) throw error;
      deadline ??= now() + options.budgetMs;
      const remaining = deadline - now();
      if (remaining <= 0) {
        throw new DatabaseUnavailableError(`database unavailable for ${options.budgetMs} ms: ${errorMessage(error)}`, {
          cause: error,
        });
      }
      await sleep(
        Math.min(remaining, backoffDelayMs(attempt, { baseDelayMs: BASE_DELAY_MS, maxDelayMs: MAX_DELAY_MS })),
      );
    }
  }
}
