import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { databaseOptions, openDatabase } from './database-options';

describe(databaseOptions.name, () => {
  let directory: string;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'tf-db-options-'));
  });

  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('should open an embedded SQLite file in WAL mode, syncing at checkpoints, with foreign keys and a busy timeout of DATABASE_TIMEOUT_MS', async () => {
    const file = join(directory, 'toolflow.sqlite');
    const dataSource = await new DataSource(
      databaseOptions({ type: 'sqlite', database: file, url: `sqlite:${file}` }, false, 7000),
    ).initialize();
    try {
      const pragma = async (name: string): Promise<unknown> =>
        Object.values((await dataSource.query<Array<Record<string, unknown>>>(`PRAGMA ${name}`))[0])[0];

      expect(await pragma('journal_mode')).toBe('wal');
      // 1 = NORMAL: with WAL, durable against a killed process; FULL (2) would sync every commit.
      expect(await pragma('synchronous')).toBe(1);
      expect(await pragma('foreign_keys')).toBe(1);
      expect(await pragma('busy_timeout')).toBe(7000);
    } finally {
      await dataSource.destroy();
    }
  });
});

describe('openDatabase on a SQLite file', () => {
  let dir: string;
  let dataSource: DataSource | undefined;
  const autocheckpoint = (db: Database.Database) => db.pragma('wal_autocheckpoint', { simple: true }) as number;

  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'toolflow-checkpoint-'))));
  afterEach(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('checkpoints on its thread while open, and ends the thread when destroyed', async () => {
    const database = join(dir, 'toolflow.sqlite');
    dataSource = await openDatabase(
      databaseOptions({ type: 'sqlite', database, url: `sqlite:${database}` }, true),
      true,
    );
    const connection = (dataSource.driver as unknown as { databaseConnection: Database.Database }).databaseConnection;
    expect(autocheckpoint(connection)).toBe(0);

    await dataSource.destroy();
    expect(connection.open).toBe(false);
    // Closed cleanly: the last connection to close checkpointed the log and removed it.
    expect(() => statSync(`${database}-wal`)).toThrow();
  });

  it('starts no thread for an in-memory database', async () => {
    dataSource = await openDatabase(
      databaseOptions({ type: 'sqlite', database: ':memory:', url: 'sqlite::memory:' }, true),
      true,
    );
    const connection = (dataSource.driver as unknown as { databaseConnection: Database.Database }).databaseConnection;
    expect(autocheckpoint(connection)).toBe(1000);
  });
});
