import Database from 'better-sqlite3';
import type { SqliteProcessMessage, SqliteQueryRequest } from './sqlite-protocol';
import { runSqliteQuery } from './sqlite-query';
import { errorMessage } from '../../../shared/error-text';

/**
 * The child side of SqliteRunner: opens the file read-only and answers one query at a time. A
 * process (not a worker thread) because only killing it stops SQLite inside a long native step.
 */
export const serveSqliteQueries = (file: string): void => {
  const send = (message: SqliteProcessMessage): void => {
    if (process.connected) process.send?.(message);
  };
  let database: Database.Database;
  try {
    database = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    send({ type: 'open-failed', message: errorMessage(error) });
    return;
  }
  process.on('message', (request: SqliteQueryRequest) => send(runSqliteQuery(database, request)));
  // The parent went away: nothing is left to answer to.
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready' });
};

if (require.main === module) serveSqliteQueries(process.argv[2] ?? '');
