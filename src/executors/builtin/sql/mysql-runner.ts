import type { Connection as CallbackConnection } from 'mysql2';
import { createPool, type FieldPacket, type Pool, type PoolConnection, type RowDataPacket } from 'mysql2/promise';
import { errorMessage } from '../../../shared/error-text';
import { ToolExecutionError, ToolForbiddenError } from '../../../shared/tool-errors';
import { queryTimeoutError, toJsonRow, type QueryResult, type ReadOnlyQueryOptions } from './query-result';

type MysqlFlavor = 'mysql' | 'mariadb';

/** ER_STATEMENT_TIMEOUT (MariaDB max_statement_time) and ER_QUERY_TIMEOUT (MySQL max_execution_time). */
const TIMEOUT_ERRNOS = new Set([1969, 3024]);
/** How long past the limit the client waits for the server's own timeout before killing the query itself. */
const KILL_GRACE_MS = 500;

/**
 * Runs a statement on MySQL/MariaDB in a read-only session inside `START TRANSACTION READ ONLY`,
 * then rolls back. The time limit is enforced by the server (`max_statement_time` on MariaDB,
 * `max_execution_time` on MySQL) and, should the server not stop in time or the call be aborted,
 * by `KILL QUERY` from a second connection.
 */
export class MysqlRunner {
  private readonly pool: Pool;
  private flavor?: Promise<MysqlFlavor>;

  constructor(url: string) {
    this.pool = createPool({ uri: url, connectionLimit: 4, dateStrings: true, supportBigNumbers: true });
  }

  async run(sql: string, params: readonly unknown[], options: ReadOnlyQueryOptions): Promise<QueryResult> {
    if (options.signal?.aborted) throw cancelledError();
    const flavor = await this.detectFlavor();
    const session = await this.pool.getConnection();
    let reusable = true;
    try {
      await session.query(
        flavor === 'mariadb'
          ? `SET SESSION max_statement_time = ${Math.max(0.001, options.timeoutMs / 1000)}`
          : `SET SESSION max_execution_time = ${Math.max(1, Math.round(options.timeoutMs))}`,
      );
      // DDL commits the open transaction implicitly and would run outside it; a read-only session
      // characteristic makes that implicit transaction read-only as well.
      await session.query('SET SESSION TRANSACTION READ ONLY');
      await session.query('START TRANSACTION READ ONLY');
      const result = await this.withKillSwitch(session, options, () => streamRows(session, sql, params, options));
      await session.query('ROLLBACK');
      return result;
    } catch (error) {
      reusable = false;
      throw toToolError(error, options.timeoutMs);
    } finally {
      if (reusable) session.release();
      else session.destroy();
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  /** Stops the statement on the server at the limit (plus a grace for the server's own timeout) or on abort. */
  private async withKillSwitch<T>(
    session: PoolConnection,
    options: ReadOnlyQueryOptions,
    work: () => Promise<T>,
  ): Promise<T> {
    // An abort that came while the session was being prepared fires no event any more.
    if (options.signal?.aborted) throw cancelledError();
    let stop: (error: Error) => void = () => undefined;
    const stopped = new Promise<never>((_resolve, reject) => {
      stop = (error) => {
        void this.pool.query(`KILL QUERY ${Number(session.threadId)}`).catch(() => undefined);
        reject(error);
      };
    });
    const timer = setTimeout(() => stop(queryTimeoutError(options.timeoutMs)), options.timeoutMs + KILL_GRACE_MS);
    const onAbort = (): void => stop(cancelledError());
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await Promise.race([work(), stopped]);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  private async detectFlavor(): Promise<MysqlFlavor> {
    this.flavor ??= this.pool
      .query<RowDataPacket[]>('SELECT VERSION() AS version')
      .then(([rows]) => (/mariadb/i.test(String(rows[0]?.version ?? '')) ? 'mariadb' : 'mysql'));
    try {
      return await this.flavor;
    } catch (error) {
      this.flavor = undefined;
      throw new ToolExecutionError(`cannot reach the query database: ${errorMessage(error)}`);
    }
  }
}

function cancelledError(): ToolExecutionError {
  return new ToolExecutionError('the query was cancelled');
}

function toToolError(error: unknown, timeoutMs: number): ToolExecutionError {
  if (error instanceof ToolExecutionError) return error;
  const errno = (error as { errno?: unknown }).errno;
  if (typeof errno === 'number' && TIMEOUT_ERRNOS.has(errno)) return queryTimeoutError(timeoutMs);
  if (/read only transaction|READ ONLY/i.test(errorMessage(error))) {
    return new ToolForbiddenError(`the database refused a write: ${errorMessage(error)}`);
  }
  return new ToolExecutionError(`SQL error: ${errorMessage(error)}`);
}

/** Streams so a huge result costs at most `rowLimit` rows of memory; the rest is read and dropped. */
function streamRows(
  session: PoolConnection,
  sql: string,
  params: readonly unknown[],
  options: ReadOnlyQueryOptions,
): Promise<QueryResult> {
  return new Promise((resolve, reject) => {
    const rows: Record<string, unknown>[] = [];
    let columns: string[] = [];
    let truncated = false;
    // The promise wrapper's typings describe `.connection` as itself; at runtime it is the callback connection.
    const core = session.connection as unknown as CallbackConnection;
    const query = core.query({ sql, values: [...params] });
    query.on('fields', (fields: FieldPacket[]) => {
      columns = fields.map((field) => field.name);
    });
    query.on('result', (row: RowDataPacket) => {
      if (rows.length < options.rowLimit) rows.push(toJsonRow(row));
      else truncated = true;
    });
    query.on('error', reject);
    query.on('end', () => resolve({ columns, rows, truncated }));
  });
}
