/** Seconds a client is asked to wait (Retry-After) when the database does not answer. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * Driver error codes that mean "the database cannot be reached or is overloaded right now", as opposed
 * to a query it refused: the same statement may succeed later.
 */
const CONNECTION_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_TOO_MANY_USER_CONNECTIONS',
  'CR_CONNECTION_ERROR',
  'CR_CONN_HOST_ERROR',
  'CR_SERVER_GONE_ERROR',
  'CR_SERVER_LOST',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
]);

/** Thrown when a write kept failing with connection errors for its whole retry budget. */
export class DatabaseUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DatabaseUnavailableError';
  }
}

const codeOf = (error: object): unknown => (error as { code?: unknown }).code;

/** Whether `error` (a driver error, or TypeORM's wrapper of one) means the database is unavailable. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  if (typeof error !== 'object' || error === null) return false;
  const driverError = (error as { driverError?: unknown }).driverError;
  const codes = [codeOf(error), typeof driverError === 'object' && driverError !== null ? codeOf(driverError) : null];
  return codes.some((code) => typeof code === 'string' && CONNECTION_ERROR_CODES.has(code));
}
