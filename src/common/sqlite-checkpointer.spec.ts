import { Logger } from '@nestjs/common';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSqliteCheckpointer, type SqliteCheckpointer } from './sqlite-checkpointer';

const autocheckpoint = (db: Database.Database) => db.pragma('wal_autocheckpoint', { simple: true }) as number;

/** Writes about 5 MB in 50 commits: more than the 1000 pages (4 MB) after which a connection checkpoints for itself. */
function writeFiveMegabytes(db: Database.Database): void {
  const insert = db.prepare('INSERT INTO filler (body) VALUES (?)');
  const commit = db.transaction(() => {
    for (let row = 0; row < 25; row++) insert.run('x'.repeat(4000));
  });
  for (let transaction = 0; transaction < 50; transaction++) commit();
}

async function eventually(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 4000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the SQLite checkpoint thread', () => {
  let dir: string;
  let file: string;
  let db: Database.Database;
  let checkpointer: SqliteCheckpointer | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolflow-checkpoint-'));
    file = join(dir, 'app.sqlite');
    db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    db.pragma('wal_checkpoint(TRUNCATE)');
  });

  afterEach(async () => {
    await checkpointer?.stop();
    checkpointer = undefined;
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies the log into the database file while the connection that writes no longer checkpoints', async () => {
    checkpointer = await startSqliteCheckpointer(file, db, 20);
    expect(autocheckpoint(db)).toBe(0);
    const before = statSync(file).size;

    writeFiveMegabytes(db);
    await eventually(() => statSync(file).size > before + 5_000_000, 'the thread checkpointed the log');
  });

  it('gives checkpoints back to the connection when the thread dies, and when it is stopped', async () => {
    checkpointer = await startSqliteCheckpointer(file, db, 20);
    await checkpointer.worker.terminate();
    await eventually(() => autocheckpoint(db) === 1000, 'the connection checkpoints for itself again');

    // The connection now copies the log back itself, in the commit that fills it past 1000 pages (4 MB).
    const before = statSync(file).size;
    writeFiveMegabytes(db);
    expect(statSync(file).size).toBeGreaterThan(before + 3_500_000);

    const second = await startSqliteCheckpointer(file, db, 20);
    expect(autocheckpoint(db)).toBe(0);
    await second.stop();
    expect(autocheckpoint(db)).toBe(1000);
  });

  it('falls back to the connection when the thread cannot open the file, and says why', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      checkpointer = await startSqliteCheckpointer(join(dir, 'missing.sqlite'), db, 20);
      expect(autocheckpoint(db)).toBe(1000);
      expect(warn).toHaveBeenCalledWith(expect.stringMatching(/exited \(1\): .*SQLITE_CANTOPEN/));
    } finally {
      warn.mockRestore();
    }
  });
});
