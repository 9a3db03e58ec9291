import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import type { DataSource, QueryRunner } from 'typeorm';
import { ConfigError } from '../config/app-config';
import { errorMessage } from '../shared/error-text';

/** How often a MySQL holder checks that its lock survived (a lost connection loses it) and takes it again. */
const RECHECK_MS = 10_000;
/** GET_LOCK names are at most 64 characters and server-wide: one per database. */
const MAX_LOCK_NAME = 64;

export const SECOND_EMBEDDED_PROCESS =
  'another ToolFlow process without REDIS_URL (embedded mode) is running on this database: it executes and ' +
  'resumes the runs stored there, and a second one would run them again. Set REDIS_URL on every process to run ' +
  'several on one database (queue mode), or stop the other process first';

/**
 * Embedded mode executes and resumes the runs of its database without leases, so it must be alone on it: this
 * lock refuses the start of a second embedded process on a database a live one holds. MySQL/MariaDB: a named
 * lock held on a connection of its own (the server drops it when the process dies). A SQLite file: an
 * exclusive lock on `<file>.embedded-lock` (the OS drops it when the process dies). In-memory SQLite: none.
 */
@Injectable()
export class EmbeddedProcessLock implements OnApplicationShutdown {
  private readonly logger = new Logger(EmbeddedProcessLock.name);
  private runner: QueryRunner | null = null;
  private lockFile: Database.Database | null = null;
  private timer: NodeJS.Timeout | null = null;
  private lockName = '';

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** @throws ConfigError when another live embedded process holds the database. */
  async acquire(): Promise<void> {
    const options = this.dataSource.options;
    if (options.type === 'better-sqlite3') {
      if (options.database !== ':memory:') this.lockSqlite(`${options.database}.embedded-lock`);
      return;
    }
    const [row] = await this.dataSource.query<Array<{ name: string }>>('SELECT DATABASE() AS name');
    const full = `toolflow_embedded:${row.name}`;
    this.lockName =
      full.length <= MAX_LOCK_NAME
        ? full
        : `toolflow_embedded:${createHash('sha256').update(row.name).digest('hex').slice(0, 40)}`;
    if (!(await this.lockMysql())) throw new ConfigError([SECOND_EMBEDDED_PROCESS]);
    this.timer = setInterval(() => void this.recheck(), RECHECK_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.lockFile?.close();
    this.lockFile = null;
    await this.dropRunner();
  }

  private lockSqlite(file: string): void {
    const lock = new Database(file, { timeout: 0 });
    try {
      lock.pragma('locking_mode = EXCLUSIVE');
      lock.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      lock.close();
      if ((error as { code?: unknown }).code === 'SQLITE_BUSY') throw new ConfigError([SECOND_EMBEDDED_PROCESS]);
      throw error;
    }
    this.lockFile = lock;
  }

  /** Takes the named lock on a connection held for it (again, after that connection was lost); true when held. */
  private async lockMysql(): Promise<boolean> {
    this.runner ??= this.dataSource.createQueryRunner();
    const [row] = (await this.runner.query('SELECT GET_LOCK(?, 0) AS locked', [this.lockName])) as Array<{
      locked: number | string | null;
    }>;
    // GET_LOCK on the connection that holds the lock already succeeds (and counts once more; closing drops all).
    return Number(row.locked) === 1;
  }

  private async recheck(): Promise<void> {
    try {
      if (await this.lockMysql()) return;
      this.logger.error(`lost the embedded-mode lock on this database: ${SECOND_EMBEDDED_PROCESS}`);
    } catch (error) {
      // The lock's connection is gone (the database was away): the next check takes it again on a new one.
      this.logger.warn(`embedded-mode lock not held, the database is unavailable: ${errorMessage(error)}`);
      await this.dropRunner();
    }
  }

  private async dropRunner(): Promise<void> {
    const runner = this.runner;
    this.runner = null;
    if (!runner || runner.isReleased) return;
    try {
      await runner.query('SELECT RELEASE_ALL_LOCKS()');
    } catch {
      // A connection already lost holds no lock.
    }
    await runner.release().catch(() => undefined);
  }
}
