import Database from 'better-sqlite3';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolForbiddenError } from '../run-tool';
import { ToolExecutionError, type ToolExecuteContext, type ToolExecuteResult } from '../tool-definition';
import type { BuiltinEnvironment } from './builtin-tool';
import {
  assertReadOnlySql,
  closeQueryConnections,
  databaseQuery,
  type DatabaseQueryParams,
  parseQueryTarget,
  runReadOnlyQuery,
} from './database-query';

describe(assertReadOnlySql.name, () => {
  it.each([
    'SELECT * FROM orders WHERE id = ?',
    'select count(*) from orders;',
    'WITH recent AS (SELECT * FROM orders) SELECT * FROM recent',
    'SHOW TABLES',
    'EXPLAIN SELECT 1',
    'EXPLAIN ANALYZE SELECT 1',
    'DESCRIBE orders',
    "SELECT REPLACE(name, 'a', 'b'), INSERT('abc', 1, 1, 'x') FROM t",
    "SELECT 'DELETE FROM t; DROP TABLE t' AS text",
    'SELECT `update`, "set" FROM t -- comment with DROP\n',
    'SELECT 1 /* DROP TABLE t */',
    "SELECT 'it''s' FROM t",
    "SELECT 'a\\' ; DROP TABLE t; '",
  ])('should accept %j', (sql) => {
    expect(() => assertReadOnlySql(sql, 'mysql')).not.toThrow();
  });

  it.each([
    ['DELETE FROM orders', 'it starts with "DELETE"'],
    ['INSERT INTO t VALUES (1)', 'it starts with "INSERT"'],
    ['UPDATE t SET a = 1', 'it starts with "UPDATE"'],
    ['REPLACE INTO t VALUES (1)', 'it starts with "REPLACE"'],
    ['DROP TABLE t', 'it starts with "DROP"'],
    ['CREATE TABLE x (a int)', 'it starts with "CREATE"'],
    ['ALTER TABLE t ADD c int', 'it starts with "ALTER"'],
    ['TRUNCATE t', 'it starts with "TRUNCATE"'],
    ['GRANT ALL ON *.* TO x', 'it starts with "GRANT"'],
    ['LOCK TABLES t READ', 'it starts with "LOCK"'],
    ['CALL proc()', 'it starts with "CALL"'],
    ['SET @a = 1', 'it starts with "SET"'],
    ['LOAD DATA INFILE "x" INTO TABLE t', 'it starts with "LOAD"'],
    ['HANDLER t OPEN', 'it starts with "HANDLER"'],
    ['', 'it starts with nothing'],
    ['SELECT 1; DROP TABLE t', 'multiple statements are not allowed'],
    ['SELECT 1; SELECT 2', 'multiple statements are not allowed'],
    ['WITH x AS (SELECT 1) DELETE FROM t', '"DELETE" is not allowed'],
    ['WITH x AS (SELECT 1) UPDATE t SET a = 1', '"UPDATE" is not allowed'],
    ['SELECT * FROM t INTO OUTFILE "/tmp/x"', '"INTO" is not allowed'],
    ['SELECT * FROM t FOR UPDATE', '"UPDATE" is not allowed'],
    ['SELECT * FROM t LOCK IN SHARE MODE', '"LOCK" is not allowed'],
    ['SELECT LOAD_FILE("/etc/passwd")', 'LOAD_FILE() is not allowed'],
    ['SELECT SLEEP(100)', 'SLEEP() is not allowed'],
    ['SELECT 1 /*! ; DROP TABLE t */', 'executable comments'],
    ['SELECT /*+ BKA(t) */ 1', 'optimizer hints'],
    ['SELECT 1 # ; DROP TABLE t', '"#" comments are not allowed'],
    ['SELECT 1 --x\nDROP TABLE t', 'use "-- " (with a space)'],
    ["SELECT 'unterminated", 'is not closed'],
    ['SELECT 1 /* open', 'is not closed'],
    ['WITH x AS (VALUES (1)) TABLE x', 'WITH must be followed by a SELECT'],
  ])('should refuse %j (%s)', (sql, reason) => {
    expect(() => assertReadOnlySql(sql, 'mysql')).toThrow(ToolForbiddenError);
    expect(() => assertReadOnlySql(sql, 'mysql')).toThrow(reason);
  });

  it('should read backslashes in SQLite strings literally', () => {
    expect(() => assertReadOnlySql("SELECT 'a\\' ; DROP TABLE t; '", 'sqlite')).toThrow('multiple statements');
    expect(() => assertReadOnlySql("SELECT 'C:\\' AS path", 'sqlite')).not.toThrow();
    expect(() => assertReadOnlySql('SELECT [order] FROM [delete]', 'sqlite')).not.toThrow();
  });

  it('should refuse SQLite-specific writes', () => {
    expect(() => assertReadOnlySql("SELECT 1 FROM t; ATTACH 'x.db' AS x", 'sqlite')).toThrow('multiple statements');
    expect(() => assertReadOnlySql('PRAGMA writable_schema = 1', 'sqlite')).toThrow('it starts with "PRAGMA"');
  });
});

describe(parseQueryTarget.name, () => {
  it.each([
    ['sqlite:/var/data/app.db', { kind: 'sqlite', file: '/var/data/app.db' }],
    ['sqlite:///var/data/app.db', { kind: 'sqlite', file: '/var/data/app.db' }],
    ['sqlite:data/app.db', { kind: 'sqlite', file: 'data/app.db' }],
    ['mysql://reader:pw@db:3306/shop', { kind: 'mysql', url: 'mysql://reader:pw@db:3306/shop' }],
    ['mariadb://reader:pw@db/shop', { kind: 'mysql', url: 'mysql://reader:pw@db/shop' }],
  ])('should parse %s', (url, target) => {
    expect(parseQueryTarget(url)).toEqual(target);
  });

  it('should refuse other URLs', () => {
    expect(() => parseQueryTarget('postgres://x')).toThrow('supports mysql://, mariadb:// and sqlite: URLs only');
    expect(() => parseQueryTarget('sqlite::memory:')).toThrow('needs a SQLite file path');
  });
});

describe('database_query tool on SQLite', () => {
  let folder: string;
  let file: string;

  const query = (
    params: DatabaseQueryParams,
    queryDatabase: BuiltinEnvironment['queryDatabase'] = {
      url: `sqlite:${file}`,
      rowLimit: 3,
      timeoutMs: 5000,
    },
  ): Promise<ToolExecuteResult> =>
    databaseQuery.execute(
      params,
      { signal: new AbortController().signal } as ToolExecuteContext<DatabaseQueryParams>,
      { files: { root: null, maxBytes: 0 }, queryDatabase } as BuiltinEnvironment,
    );

  const count = (): number => {
    const database = new Database(file, { readonly: true });
    try {
      return (database.prepare('SELECT count(*) AS n FROM orders').get() as { n: number }).n;
    } finally {
      database.close();
    }
  };

  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'database-query-'));
    file = join(folder, 'shop.db');
    const database = new Database(file);
    database.exec(
      'CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT, total REAL, paid INTEGER, receipt BLOB)',
    );
    const insert = database.prepare('INSERT INTO orders (customer, total, paid, receipt) VALUES (?, ?, ?, ?)');
    for (let index = 1; index <= 5; index++) insert.run(`c${index}`, index * 10.5, index % 2, Buffer.from([index]));
    database.close();
  });

  afterAll(async () => {
    await closeQueryConnections();
    rmSync(folder, { recursive: true, force: true });
  });

  it('should return rows for a parameterised SELECT', async () => {
    const result = await query({
      sql: 'SELECT id, customer, total FROM orders WHERE customer = ? AND paid = ?;',
      params: ['c1', true],
    });

    expect(result.response).toBe('1 row:\n[{"id":1,"customer":"c1","total":10.5}]');
    expect(result.data).toEqual({
      columns: ['id', 'customer', 'total'],
      rows: [{ id: 1, customer: 'c1', total: 10.5 }],
      truncated: false,
      row_count: 1,
    });
  });

  it('should cap rows at the limit and flag truncation', async () => {
    const result = await query({ sql: 'SELECT id, receipt FROM orders ORDER BY id' });

    expect(result.data).toMatchObject({
      row_count: 3,
      truncated: true,
      rows: [{ id: 1, receipt: '<1 bytes>' }, { id: 2 }, { id: 3 }],
    });
    expect(result.response).toContain('truncated at 3 rows');
  });

  it('should accept a WITH … SELECT', async () => {
    const result = await query({
      sql: 'WITH big AS (SELECT * FROM orders WHERE total > 40) SELECT count(*) AS n FROM big',
    });

    expect(result.data).toMatchObject({ rows: [{ n: 2 }] });
  });

  it.each([
    'DELETE FROM orders',
    "INSERT INTO orders (customer) VALUES ('x')",
    'SELECT 1; DELETE FROM orders',
    'WITH x AS (SELECT 1) DELETE FROM orders',
  ])('should refuse %j by text before it reaches the database', async (sql) => {
    await expect(query({ sql })).rejects.toBeInstanceOf(ToolForbiddenError);
    expect(count()).toBe(5);
  });

  it.each([
    "INSERT INTO orders (customer) VALUES ('x')",
    'UPDATE orders SET total = 0',
    'DELETE FROM orders',
    "ATTACH DATABASE 'other.db' AS other",
    'CREATE TABLE hacked (a)',
  ])('should have the database refuse %j even without the text check', async (sql) => {
    const attempt = runReadOnlyQuery({ kind: 'sqlite', file }, sql, [], { rowLimit: 10, timeoutMs: 1000 });

    await expect(attempt).rejects.toBeInstanceOf(ToolForbiddenError);
    expect(count()).toBe(5);
  });

  it('should report SQL errors to the model', async () => {
    const attempt = query({ sql: 'SELECT nope FROM orders' });

    await expect(attempt).rejects.toBeInstanceOf(ToolExecutionError);
    await expect(attempt).rejects.toThrow('SQL error: no such column: nope');
  });

  it('should say when no database is configured', async () => {
    await expect(query({ sql: 'SELECT 1' }, null)).rejects.toThrow('database_query is disabled');
  });

  it('should refuse a database file that does not exist', async () => {
    await expect(
      query({ sql: 'SELECT 1' }, { url: `sqlite:${join(folder, 'missing.db')}`, rowLimit: 1, timeoutMs: 100 }),
    ).rejects.toThrow('cannot open the query database');
  });
});

const mysqlUrl = process.env.TEST_MYSQL_URL;

(mysqlUrl ? describe : describe.skip)('database_query tool on MySQL or MariaDB (TEST_MYSQL_URL)', () => {
  const target = parseQueryTarget(mysqlUrl ?? 'mysql://unused');
  const options = { rowLimit: 2, timeoutMs: 2000 };
  let admin: Connection;

  const tables = async (): Promise<string[]> => {
    const [rows] = await admin.query<RowDataPacket[]>("SHOW TABLES LIKE 'tf_spec_%'");
    return rows.map((row) => String(Object.values(row)[0]));
  };

  beforeAll(async () => {
    admin = await createConnection(mysqlUrl ?? '');
    await admin.query('DROP TABLE IF EXISTS tf_spec_orders, tf_spec_hacked');
    await admin.query('CREATE TABLE tf_spec_orders (id INT PRIMARY KEY, total DECIMAL(10, 2))');
    await admin.query('INSERT INTO tf_spec_orders VALUES (1, 10.5), (2, 20), (3, 30)');
  });

  afterAll(async () => {
    await closeQueryConnections();
    await admin.query('DROP TABLE IF EXISTS tf_spec_orders, tf_spec_hacked');
    await admin.end();
  });

  it('should run a parameterised SELECT with the row limit', async () => {
    const result = await runReadOnlyQuery(
      target,
      'SELECT id FROM tf_spec_orders WHERE total > ? ORDER BY id',
      [5],
      options,
    );

    expect(result).toEqual({ columns: ['id'], rows: [{ id: 1 }, { id: 2 }], truncated: true });
  });

  it.each(['UPDATE tf_spec_orders SET total = 0', 'CREATE TABLE tf_spec_hacked (a INT)', 'DROP TABLE tf_spec_orders'])(
    'should have the database refuse %j even without the text check',
    async (sql) => {
      await expect(runReadOnlyQuery(target, sql, [], options)).rejects.toBeInstanceOf(ToolForbiddenError);
      expect(await tables()).toEqual(['tf_spec_orders']);
      const [rows] = await admin.query<RowDataPacket[]>('SELECT SUM(total) AS sum FROM tf_spec_orders');
      expect(Number(rows[0].sum)).toBe(60.5);
    },
  );

  it('should stop a statement at the server-side time limit', async () => {
    await expect(runReadOnlyQuery(target, 'SELECT SLEEP(5)', [], { rowLimit: 1, timeoutMs: 100 })).rejects.toThrow(
      /interrupted|maximum statement execution time exceeded/i,
    );
  });
});
