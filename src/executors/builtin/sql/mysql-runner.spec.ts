import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import { throwawayMysqlDatabase } from '../../../../test/support/throwaway-mysql';
import { ToolExecutionError, ToolForbiddenError, ToolTimeoutError } from '../../../shared/tool-errors';
import { MysqlRunner } from './mysql-runner';

const mysqlUrl = process.env.TEST_MYSQL_URL;
/** About 10^9 joined rows: CPU-bound work that only a server-side limit or KILL QUERY stops. */
const HEAVY =
  'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000) ' +
  'SELECT COUNT(*) AS n /* tf_heavy_marker */ FROM c a, c b, c d';

jest.setTimeout(30_000);

(mysqlUrl ? describe : describe.skip)(`${MysqlRunner.name} (TEST_MYSQL_URL)`, () => {
  let database: { url: string; drop: () => Promise<void> };
  let admin: Connection;
  let sut: MysqlRunner;

  const tables = async (): Promise<string[]> => {
    const [rows] = await admin.query<RowDataPacket[]>('SHOW TABLES');
    return rows.map((row) => String(Object.values(row)[0]));
  };
  const runningHeavyQueries = async (): Promise<number> => {
    const [rows] = await admin.query<RowDataPacket[]>(
      "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE '%tf_heavy_marker */ FROM%' " +
        'AND ID <> CONNECTION_ID()',
    );
    return Number(rows[0].n);
  };
  const until = async (condition: () => Promise<boolean>): Promise<void> => {
    for (let attempt = 0; attempt < 200 && !(await condition()); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  beforeAll(async () => {
    database = await throwawayMysqlDatabase(mysqlUrl ?? '', 'tf_query');
    admin = await createConnection(database.url);
    await admin.query('CREATE TABLE orders (id INT PRIMARY KEY, total DECIMAL(10, 2))');
    await admin.query('INSERT INTO orders VALUES (1, 10.5), (2, 20), (3, 30)');
    sut = new MysqlRunner(database.url);
  });

  afterAll(async () => {
    await sut.close();
    await admin.end();
    await database.drop();
  });

  it('should run a parameterised SELECT with the row limit', async () => {
    const result = await sut.run('SELECT id FROM orders WHERE total > ? ORDER BY id', [5], {
      rowLimit: 2,
      timeoutMs: 10_000,
    });

    expect(result).toEqual({ columns: ['id'], rows: [{ id: 1 }, { id: 2 }], truncated: true });
  });

  it.each(['UPDATE orders SET total = 0', 'CREATE TABLE hacked (a INT)', 'DROP TABLE orders'])(
    'should have the database refuse %j even without the guard',
    async (sql) => {
      await expect(sut.run(sql, [], { rowLimit: 1, timeoutMs: 10_000 })).rejects.toBeInstanceOf(ToolForbiddenError);
      expect(await tables()).toEqual(['orders']);
      const [rows] = await admin.query<RowDataPacket[]>('SELECT SUM(total) AS sum FROM orders');
      expect(Number(rows[0].sum)).toBe(60.5);
    },
  );

  it.each([
    ['a sleeping statement', 'SELECT SLEEP(5)'],
    ['a CPU-bound statement', HEAVY],
  ])('should stop %s at the time limit as a timeout', async (_case, sql) => {
    const attempt = sut.run(sql, [], { rowLimit: 1, timeoutMs: 200 });

    await expect(attempt).rejects.toBeInstanceOf(ToolTimeoutError);
    await expect(attempt).rejects.toThrow('200 ms time limit');
  });

  it('should kill the statement on the server when the call is aborted', async () => {
    // The previous test's statement may still be unwinding on the server; counting it would abort too early.
    await until(async () => (await runningHeavyQueries()) === 0);
    const controller = new AbortController();
    const attempt = sut.run(HEAVY, [], { rowLimit: 1, timeoutMs: 60_000, signal: controller.signal });
    await until(async () => (await runningHeavyQueries()) > 0);
    expect(await runningHeavyQueries()).toBe(1);

    controller.abort();

    await expect(attempt).rejects.toThrow('the query was cancelled');
    await until(async () => (await runningHeavyQueries()) === 0);
    expect(await runningHeavyQueries()).toBe(0);
  });

  it('should not start a statement for a call aborted while its session was being prepared', async () => {
    await until(async () => (await runningHeavyQueries()) === 0);
    const controller = new AbortController();
    const attempt = sut.run(HEAVY, [], { rowLimit: 1, timeoutMs: 60_000, signal: controller.signal });
    controller.abort();

    await expect(attempt).rejects.toThrow('the query was cancelled');
    expect(await runningHeavyQueries()).toBe(0);
  });

  it('should report SQL errors to the model', async () => {
    const attempt = sut.run('SELECT nope FROM orders', [], { rowLimit: 1, timeoutMs: 10_000 });

    await expect(attempt).rejects.toBeInstanceOf(ToolExecutionError);
    await expect(attempt).rejects.toThrow("SQL error: Unknown column 'nope'");
  });
});
