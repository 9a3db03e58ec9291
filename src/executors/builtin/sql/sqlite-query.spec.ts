import Database from 'better-sqlite3';
import { runSqliteQuery } from './sqlite-query';

describe(runSqliteQuery.name, () => {
  let database: Database.Database;

  beforeEach(() => {
    database = new Database(':memory:');
    database.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, flag INTEGER)');
    database.exec('INSERT INTO t (flag) VALUES (1), (0), (1), (1)');
  });

  afterEach(() => database.close());

  it('should stop reading at the row limit and flag truncation', () => {
    expect(runSqliteQuery(database, { sql: 'SELECT id FROM t WHERE flag = ?', params: [true], rowLimit: 2 })).toEqual({
      type: 'result',
      result: { columns: ['id'], rows: [{ id: 1 }, { id: 3 }], truncated: true },
    });
  });

  it('should refuse a statement that returns no rows as forbidden', () => {
    expect(runSqliteQuery(database, { sql: 'DELETE FROM t', params: [], rowLimit: 2 })).toEqual({
      type: 'failed',
      forbidden: true,
      message: 'the statement does not read data; database_query is read-only',
    });
    expect(database.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 4 });
  });

  it('should report SQL errors', () => {
    expect(runSqliteQuery(database, { sql: 'SELECT nope FROM t', params: [], rowLimit: 2 })).toEqual({
      type: 'failed',
      forbidden: false,
      message: 'SQL error: no such column: nope',
    });
  });
});
