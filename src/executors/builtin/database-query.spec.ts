import Database from 'better-sqlite3';
import { createConnection } from 'mysql2/promise';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinEnvironment, runBuiltin } from '../../../test/factories/builtin.factory';
import {
  COMMON_QUERIES,
  type CorpusQuery,
  FORBIDDEN_QUERIES,
  MYSQL_QUERIES,
  QUERY_CORPUS_SCHEMA,
  SQLITE_QUERIES,
} from '../../../test/factories/query-corpus';
import { throwawayMysqlDatabase } from '../../../test/support/throwaway-mysql';
import { type ToolExecuteResult } from '../../shared/tool-definition';
import { ToolExecutionError, ToolForbiddenError, ToolTimeoutError } from '../../shared/tool-errors';
import { databaseQuery, type DatabaseQueryParams } from './database-query';
import { closeQueryConnections } from './sql/query-connections';

// SQLite queries run in child processes that start through the TypeScript hook here.
jest.setTimeout(30_000);

const UNBOUNDED = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT COUNT(*) FROM c';

const queryOn =
  (url: () => string, timeoutMs = 10_000) =>
  (params: DatabaseQueryParams, rowLimit = 50): Promise<ToolExecuteResult> =>
    runBuiltin(databaseQuery, params, builtinEnvironment([], { queryDatabase: { url: url(), rowLimit, timeoutMs } }));

describe('database_query tool', () => {
  afterAll(() => closeQueryConnections());

  it('should say when no database is configured', async () => {
    await expect(runBuiltin(databaseQuery, { sql: 'SELECT 1' }, builtinEnvironment())).rejects.toThrow(
      'database_query is disabled',
    );
  });

  describe('on SQLite', () => {
    let folder: string;
    let file: string;
    const query = queryOn(() => `sqlite:${file}`);

    beforeAll(() => {
      folder = mkdtempSync(join(tmpdir(), 'database-query-'));
      file = join(folder, 'shop.db');
      const database = new Database(file);
      for (const statement of QUERY_CORPUS_SCHEMA) database.exec(statement);
      database.close();
    });

    afterAll(async () => {
      await closeQueryConnections();
      rmSync(folder, { recursive: true, force: true });
    });

    it('should answer rows as JSON text and data', async () => {
      const result = await query({
        sql: 'SELECT id, name FROM customers WHERE city = ? ORDER BY id;',
        params: ['Rome'],
      });

      expect(result.response).toBe('1 row:\n[{"id":2,"name":"Bob"}]');
      expect(result.data).toEqual({
        columns: ['id', 'name'],
        rows: [{ id: 2, name: 'Bob' }],
        truncated: false,
        row_count: 1,
      });
    });

    it('should cap rows at the limit and say so', async () => {
      const result = await query({ sql: 'SELECT id FROM orders ORDER BY id' }, 3);

      expect(result.data).toMatchObject({ row_count: 3, truncated: true });
      expect(result.response).toContain('truncated at 3 rows');
    });

    it.each([...COMMON_QUERIES, ...SQLITE_QUERIES])(
      'should run $sql',
      async ({ sql, params, rowCount }: CorpusQuery) => {
        const result = await query({ sql, params });

        expect(result.data).toMatchObject({ row_count: rowCount, truncated: false });
      },
    );

    it.each(FORBIDDEN_QUERIES)('should refuse %j as forbidden', async (sql) => {
      await expect(query({ sql })).rejects.toBeInstanceOf(ToolForbiddenError);
    });

    it('should stop the unbounded recursive query of issue 7 as a timeout naming the limit', async () => {
      const attempt = queryOn(() => `sqlite:${file}`, 250)({ sql: UNBOUNDED });

      await expect(attempt).rejects.toBeInstanceOf(ToolTimeoutError);
      await expect(attempt).rejects.toThrow('250 ms time limit');
    });

    it('should report SQL errors to the model', async () => {
      const attempt = query({ sql: 'SELECT nope FROM orders' });

      await expect(attempt).rejects.toBeInstanceOf(ToolExecutionError);
      await expect(attempt).rejects.toThrow('SQL error: no such column: nope');
    });
  });

  const mysqlUrl = process.env.TEST_MYSQL_URL;

  (mysqlUrl ? describe : describe.skip)('on MySQL or MariaDB (TEST_MYSQL_URL)', () => {
    let database: { url: string; drop: () => Promise<void> };
    const query = queryOn(() => database.url);

    beforeAll(async () => {
      database = await throwawayMysqlDatabase(mysqlUrl ?? '', 'tf_query');
      const admin = await createConnection(database.url);
      for (const statement of QUERY_CORPUS_SCHEMA) await admin.query(statement);
      await admin.end();
    });

    afterAll(async () => {
      await closeQueryConnections();
      await database.drop();
    });

    it.each([...COMMON_QUERIES, ...MYSQL_QUERIES])(
      'should run $sql',
      async ({ sql, params, rowCount }: CorpusQuery) => {
        const result = await query({ sql, params });

        expect(result.data).toMatchObject({ row_count: rowCount, truncated: false });
      },
    );

    it.each(FORBIDDEN_QUERIES)('should refuse %j as forbidden', async (sql, reason) => {
      const attempt = query({ sql });

      await expect(attempt).rejects.toBeInstanceOf(ToolForbiddenError);
      await expect(attempt).rejects.toThrow(reason);
    });
  });
});
