import type Database from 'better-sqlite3';
import { errorMessage } from '../../../shared/error-text';
import { toJsonRow } from './query-result';
import type { SqliteQueryRequest, SqliteReply } from './sqlite-protocol';

/**
 * Runs one statement on a read-only handle, streaming so a huge result costs at most `rowLimit`
 * rows of memory. Synchronous and unbounded in time: only ever called inside the query process.
 */
export function runSqliteQuery(database: Database.Database, request: SqliteQueryRequest): SqliteReply {
  let statement: Database.Statement;
  try {
    statement = database.prepare(request.sql);
  } catch (error) {
    return { type: 'failed', forbidden: false, message: `SQL error: ${errorMessage(error)}` };
  }
  if (!statement.reader) {
    return {
      type: 'failed',
      forbidden: true,
      message: 'the statement does not read data; database_query is read-only',
    };
  }
  const values = request.params.map((value) => (typeof value === 'boolean' ? Number(value) : value));
  const rows: Record<string, unknown>[] = [];
  let truncated = false;
  try {
    for (const row of statement.iterate(...values) as Iterable<Record<string, unknown>>) {
      if (rows.length >= request.rowLimit) {
        truncated = true;
        break;
      }
      rows.push(toJsonRow(row));
    }
  } catch (error) {
    return { type: 'failed', forbidden: false, message: `SQL error: ${errorMessage(error)}` };
  }
  const columns = statement.columns().map((column) => column.name);
  return { type: 'result', result: { columns, rows, truncated } };
}
