import { DatabaseUnavailableError, isDatabaseUnavailable } from './errors/database-unavailable';
import { errorMessage } from '../shared/error-text';
import { retry } from '../shared/retry';
import type { Sleep } from '../shared/sleep';

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
  const { alreadyDone } = options;
  try {
    return await retry<T | undefined>(
      async (attempt) => {
        try {
          return await write();
        } catch (error) {
          if (attempt > 0 && alreadyDone?.(error)) return undefined;
          throw error;
        }
      },
      {
        budgetMs: options.budgetMs,
        retryError: isDatabaseUnavailable,
        backoff: { baseDelayMs: BASE_DELAY_MS, maxDelayMs: MAX_DELAY_MS },
        sleep: options.sleep,
        now: options.now,
      },
    );
  } catch (error) {
    // Only a budget that ran out ends the retries with the database still unavailable.
    if (!isDatabaseUnavailable(error)) throw error;
    throw new DatabaseUnavailableError(`database unavailable for ${options.budgetMs} ms: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}
