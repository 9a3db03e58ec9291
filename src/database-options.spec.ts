import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { databaseOptions } from './database-options';

describe(databaseOptions.name, () => {
  let directory: string;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'tf-db-options-'));
  });

  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('should open an embedded SQLite file in WAL mode, syncing at checkpoints, with foreign keys and a busy timeout', async () => {
    const file = join(directory, 'toolflow.sqlite');
    const dataSource = await new DataSource(
      databaseOptions({ type: 'sqlite', database: file, url: `sqlite:${file}` }, false),
    ).initialize();
    try {
      const pragma = async (name: string): Promise<unknown> =>
        Object.values((await dataSource.query<Array<Record<string, unknown>>>(`PRAGMA ${name}`))[0])[0];

      expect(await pragma('journal_mode')).toBe('wal');
      // 1 = NORMAL: with WAL, durable against a killed process; FULL (2) would sync every commit.
      expect(await pragma('synchronous')).toBe(1);
      expect(await pragma('foreign_keys')).toBe(1);
      expect(await pragma('busy_timeout')).toBe(5000);
    } finally {
      await dataSource.destroy();
    }
  });
});
