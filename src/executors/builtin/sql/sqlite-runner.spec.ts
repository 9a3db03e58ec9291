import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolExecutionError, ToolForbiddenError, ToolTimeoutError } from '../../../shared/tool-errors';
import type { ChildProcess } from 'node:child_process';
import { waitFor } from '../../../../test/support/wait-for';
import { SqliteRunner } from './sqlite-runner';

// Each query process starts through the TypeScript hook here, which takes seconds on a busy machine.
jest.setTimeout(30_000);

const UNBOUNDED = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c';

describe(SqliteRunner.name, () => {
  let folder: string;
  let file: string;
  let sut: SqliteRunner;

  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'sqlite-runner-'));
    file = join(folder, 'shop.db');
    const database = new Database(file);
    database.exec('CREATE TABLE orders (id INTEGER PRIMARY KEY, total REAL, receipt BLOB)');
    const insert = database.prepare('INSERT INTO orders (total, receipt) VALUES (?, ?)');
    for (let index = 1; index <= 5; index++) insert.run(index * 10.5, Buffer.from([index]));
    database.close();
    sut = new SqliteRunner(file);
  });

  afterAll(async () => {
    await sut.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('should return rows and columns, converting blobs and booleans', async () => {
    const result = await sut.run('SELECT id, receipt FROM orders WHERE id <= ? AND 1 = ? ORDER BY id', [2, true], {
      rowLimit: 10,
      timeoutMs: 10_000,
    });

    expect(result).toEqual({
      columns: ['id', 'receipt'],
      rows: [
        { id: 1, receipt: '<1 bytes>' },
        { id: 2, receipt: '<1 bytes>' },
      ],
      truncated: false,
    });
  });

  it('should stop an unbounded recursive query at the time limit while the event loop keeps running', async () => {
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    try {
      const attempt = sut.run(UNBOUNDED, [], { rowLimit: 1, timeoutMs: 300 });

      await expect(attempt).rejects.toBeInstanceOf(ToolTimeoutError);
      await expect(attempt).rejects.toThrow('300 ms time limit');
      expect(ticks).toBeGreaterThan(0);
    } finally {
      clearInterval(ticker);
    }
  });

  it('should answer the next query after a timeout with a fresh process', async () => {
    await expect(sut.run(UNBOUNDED, [], { rowLimit: 1, timeoutMs: 100 })).rejects.toBeInstanceOf(ToolTimeoutError);

    const result = await sut.run('SELECT COUNT(*) AS n FROM orders', [], { rowLimit: 1, timeoutMs: 10_000 });

    expect(result.rows).toEqual([{ n: 5 }]);
  });

  it('should stop the query when the call is aborted', async () => {
    const controller = new AbortController();
    const attempt = sut.run(UNBOUNDED, [], { rowLimit: 1, timeoutMs: 60_000, signal: controller.signal });
    controller.abort();

    await expect(attempt).rejects.toThrow('the query was cancelled');
  });

  it.each([
    'UPDATE orders SET total = 0',
    'DELETE FROM orders',
    "ATTACH DATABASE 'other.db' AS other",
    'CREATE TABLE hacked (a)',
  ])('should have the database refuse %j even without the guard', async (sql) => {
    await expect(sut.run(sql, [], { rowLimit: 1, timeoutMs: 10_000 })).rejects.toBeInstanceOf(ToolForbiddenError);

    const database = new Database(file, { readonly: true });
    expect(database.prepare('SELECT COUNT(*) AS n FROM orders').get()).toEqual({ n: 5 });
    database.close();
  });

  it('should report SQL errors and keep serving', async () => {
    const attempt = sut.run('SELECT nope FROM orders', [], { rowLimit: 1, timeoutMs: 10_000 });

    await expect(attempt).rejects.toBeInstanceOf(ToolExecutionError);
    await expect(attempt).rejects.toThrow('SQL error: no such column: nope');
    await expect(sut.run('SELECT 1 AS one', [], { rowLimit: 1, timeoutMs: 10_000 })).resolves.toMatchObject({
      rows: [{ one: 1 }],
    });
  });

  it('should refuse a database file that does not exist', async () => {
    const missing = new SqliteRunner(join(folder, 'missing.db'));
    try {
      await expect(missing.run('SELECT 1', [], { rowLimit: 1, timeoutMs: 10_000 })).rejects.toThrow(
        'cannot open the query database',
      );
    } finally {
      await missing.close();
    }
  });

  it('should have every query process exited, an idle and a busy one, once close resolves', async () => {
    const runner = new SqliteRunner(file);
    const pool = runner as unknown as { idle: ChildProcess[]; running: Set<ChildProcess> };
    const busy = runner.run(UNBOUNDED, [], { rowLimit: 1, timeoutMs: 60_000 });
    const failed = expect(busy).rejects.toBeInstanceOf(ToolExecutionError);
    await waitFor(() => pool.running.size === 1, { what: 'a query process took the unbounded query' });
    await runner.run('SELECT 1', [], { rowLimit: 1, timeoutMs: 10_000 });
    expect([pool.idle.length, pool.running.size]).toEqual([1, 1]);
    const children = [...pool.idle, ...pool.running];

    await runner.close();

    expect(children.map((child) => child.exitCode !== null || child.signalCode !== null)).toEqual([true, true]);
    await failed;
  });
});
