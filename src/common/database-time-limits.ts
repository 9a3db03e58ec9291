import type { DataSource } from 'typeorm';
import { DatabaseUnavailableError } from './errors/database-unavailable';

type QueryCallback = (error: { code?: unknown } | null, ...results: unknown[]) => void;

/** The parts of a mysql2 pool connection (callback API, what TypeORM's MySQL driver holds) this file uses. */
interface PoolConnection {
  query(sql: unknown, values?: unknown, callback?: QueryCallback): unknown;
  release(): void;
  destroy(): void;
}

interface MysqlDriverInternals {
  obtainMasterConnection(): Promise<PoolConnection>;
}

/** mysql2's error when a statement got no answer within its `timeout`. */
const QUERY_TIMED_OUT = 'PROTOCOL_SEQUENCE_TIMEOUT';
const bounded = new WeakSet<PoolConnection>();

/**
 * Bounds what a hung MySQL/MariaDB server (a SIGSTOP'd or frozen mariadbd: connections accepted, nothing
 * answered) costs a caller to `limitMs`, so that a request fails with "database unavailable" (503) instead of
 * waiting for the whole pause, and a run's write is retried within its RUN_DB_RETRY_MS budget:
 * - getting a connection from the pool (all of its connections busy on hung statements) fails after `limitMs`;
 *   a connection handed over later goes back to the pool;
 * - every statement gets mysql2's `timeout` of `limitMs`, and a connection whose statement timed out is
 *   destroyed: its statement is still pending on it, and the pool would otherwise queue the next one behind it.
 * New connections are bounded by the pool's `connectTimeout` (see database-options.ts). Applied after the
 * migrations, which may legitimately take longer.
 */
export function limitDatabaseTime(dataSource: DataSource, limitMs: number): void {
  if (dataSource.options.type !== 'mysql') return;
  const driver = dataSource.driver as unknown as MysqlDriverInternals;
  const obtain = driver.obtainMasterConnection.bind(driver);
  driver.obtainMasterConnection = () =>
    new Promise<PoolConnection>((resolve, reject) => {
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        reject(new DatabaseUnavailableError(`database unavailable: no connection within ${limitMs} ms`));
      }, limitMs);
      obtain()
        .then((connection) => {
          if (late) connection.release();
          else resolve(boundQueries(connection, limitMs));
        }, reject)
        .finally(() => clearTimeout(timer));
    });
}

function boundQueries(connection: PoolConnection, limitMs: number): PoolConnection {
  if (bounded.has(connection)) return connection;
  bounded.add(connection);
  const query = connection.query.bind(connection);
  connection.query = (sql: unknown, values?: unknown, callback?: QueryCallback) => {
    if (typeof callback !== 'function') return query(sql, values, callback);
    const statement = typeof sql === 'string' ? { sql, timeout: limitMs } : { timeout: limitMs, ...(sql as object) };
    return query(statement, values, (error, ...results) => {
      if (error?.code === QUERY_TIMED_OUT) connection.destroy();
      callback(error, ...results);
    });
  };
  return connection;
}
