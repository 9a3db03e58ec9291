import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeQueryConnections, runReadOnlyQuery } from './query-connections';

// The SQLite query process starts through the TypeScript hook here.
jest.setTimeout(30_000);

describe(runReadOnlyQuery.name, () => {
  let folder: string;
  let file: string;

  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'query-connections-'));
    file = join(folder, 'one.db');
    new Database(file).close();
  });

  afterAll(async () => {
    await closeQueryConnections();
    rmSync(folder, { recursive: true, force: true });
  });

  it('should run on the target and again after every connection was closed', async () => {
    const options = { rowLimit: 1, timeoutMs: 10_000 };
    await expect(runReadOnlyQuery({ kind: 'sqlite', file }, 'SELECT 1 AS one', [], options)).resolves.toMatchObject({
      rows: [{ one: 1 }],
    });

    await closeQueryConnections();

    await expect(runReadOnlyQuery({ kind: 'sqlite', file }, 'SELECT 2 AS two', [], options)).resolves.toMatchObject({
      rows: [{ two: 2 }],
    });
  });
});
