import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { migrations } from '../migrations';
import { ApiKeyEntity } from './api-keys/api-key.entity';
import { QuotaEntity } from './quotas/quota.entity';
import { AuditRecordEntity } from './audit/audit-record.entity';
import { IdempotencyKeyEntity } from './common/idempotency/idempotency-key.entity';
import { McpServerEntity } from './mcp/mcp-server.entity';
import { NodeRunEntity } from './runs/node-run.entity';
import { RunEventEntity } from './runs/run-event.entity';
import { RunEntity } from './runs/run.entity';
import { ToolResultEntity } from './runs/tool-result.entity';
import { RunCheckpointEntity } from './runs/run-checkpoint.entity';
import { RunApprovalEntity } from './runs/run-approval.entity';
import { ModelExchangeEntity } from './runs/model-exchange.entity';
import { ToolCallLogEntity } from './call-logs/tool-call-log.entity';
import { TestSuiteEntity } from './evaluations/test-suite.entity';
import { TestRunEntity } from './evaluations/test-run.entity';
import { WorkflowEntity } from './workflow/workflow.entity';
import { WorkflowVersionEntity } from './workflow/workflow-version.entity';
import { ToolEmbeddingEntity } from './workflow/tool-selection/tool-embedding.entity';
import { ToolUsageTermEntity } from './workflow/tool-selection/tool-usage-term.entity';
import { ToolEntity } from './tools/tool.entity';
import { ToolVersionEntity } from './tools/tool-version.entity';
import { type DatabaseConfig, DEFAULT_DATABASE_TIMEOUT_MS } from './config/app-config';
import { limitDatabaseTime } from './common/database-time-limits';
import { startSqliteCheckpointer, type SqliteCheckpointer } from './common/sqlite-checkpointer';
import type { BetterSqlite3Driver } from 'typeorm/driver/better-sqlite3/BetterSqlite3Driver';

export const entities = [
  ToolEntity,
  ToolVersionEntity,
  ApiKeyEntity,
  ToolCallLogEntity,
  WorkflowEntity,
  WorkflowVersionEntity,
  RunEntity,
  NodeRunEntity,
  RunEventEntity,
  RunCheckpointEntity,
  RunApprovalEntity,
  IdempotencyKeyEntity,
  ToolResultEntity,
  McpServerEntity,
  ToolEmbeddingEntity,
  ToolUsageTermEntity,
  ModelExchangeEntity,
  TestSuiteEntity,
  TestRunEntity,
  AuditRecordEntity,
  QuotaEntity,
];

/**
 * One DataSource definition (a root file: it lists every module's entities) for the app, the TypeORM CLI
 * (ormconfig.ts) and the tests. Never synchronize. `timeoutMs` (DATABASE_TIMEOUT_MS) bounds opening a MySQL
 * connection and waiting for a SQLite lock; openDatabase bounds the rest.
 */
export function databaseOptions(
  database: DatabaseConfig,
  migrationsRun: boolean,
  timeoutMs = DEFAULT_DATABASE_TIMEOUT_MS,
): DataSourceOptions {
  const common = { entities, migrations, migrationsRun, synchronize: false, logging: false } as const;
  if (database.type === 'mysql') {
    return {
      ...common,
      type: 'mysql',
      url: database.url,
      charset: 'utf8mb4_unicode_ci',
      timezone: 'Z',
      connectorPackage: 'mysql2',
      extra: { connectionLimit: 20, connectTimeout: timeoutMs },
      // inOrder (common/plain-sql.ts) sends statements that must follow one another in one round trip. Every
      // statement of the service has its values bound as parameters, never written into its text.
      multipleStatements: true,
    };
  }
  if (database.database !== ':memory:') mkdirSync(dirname(database.database), { recursive: true });
  return {
    ...common,
    type: 'better-sqlite3',
    database: database.database,
    enableWAL: true,
    prepareDatabase: (db: { pragma(statement: string): unknown }) => {
      db.pragma(`busy_timeout = ${timeoutMs}`);
      // With WAL, NORMAL syncs at checkpoints instead of every commit: a killed process loses no committed
      // transaction (what resume relies on) and the file never corrupts; only a power loss or an OS crash may
      // undo the last commits. A commit is a few times cheaper on a busy disk.
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
    },
  };
}

/** A SQLite file's DataSource, whose WAL is checkpointed on a thread of its own while it is open. */
class SqliteDataSource extends DataSource {
  private checkpointer?: SqliteCheckpointer;

  async startCheckpointer(file: string): Promise<void> {
    const connection = (this.driver as BetterSqlite3Driver).databaseConnection as Parameters<
      typeof startSqliteCheckpointer
    >[1];
    this.checkpointer = await startSqliteCheckpointer(file, connection);
  }

  override async destroy(): Promise<void> {
    await this.checkpointer?.stop();
    await super.destroy();
  }
}

/** How long a starting process waits for another one to finish migrating the same MySQL database. */
const MIGRATION_LOCK_SECONDS = 60;

/**
 * Opens the data source and applies pending migrations. On MySQL several processes may start at once
 * on one database: a named lock lets one of them migrate while the others wait, then find nothing to do.
 * After them, every MySQL statement and connection checkout is bounded by `timeoutMs` (limitDatabaseTime).
 */
export async function openDatabase(
  options: DataSourceOptions,
  migrationsRun: boolean,
  timeoutMs = DEFAULT_DATABASE_TIMEOUT_MS,
): Promise<DataSource> {
  if (options.type === 'better-sqlite3') {
    const dataSource = await new SqliteDataSource({ ...options, migrationsRun: false }).initialize();
    if (migrationsRun) await dataSource.runMigrations();
    if (options.database !== ':memory:') await dataSource.startCheckpointer(options.database);
    return dataSource;
  }
  const dataSource = await new DataSource({ ...options, migrationsRun: false }).initialize();
  if (migrationsRun) await migrateLocked(dataSource);
  limitDatabaseTime(dataSource, timeoutMs);
  return dataSource;
}

async function migrateLocked(dataSource: DataSource): Promise<void> {
  // GET_LOCK belongs to a connection: this runner holds one while the migrations use others.
  const lock = dataSource.createQueryRunner();
  try {
    const rows = (await lock.query('SELECT GET_LOCK(?, ?) AS locked', [
      'toolflow_migrations',
      MIGRATION_LOCK_SECONDS,
    ])) as Array<{ locked: number | string | null }>;
    const locked = rows[0]?.locked;
    if (Number(locked) !== 1) {
      throw new Error(`another process held the migration lock for more than ${MIGRATION_LOCK_SECONDS} s`);
    }
    try {
      await dataSource.runMigrations();
    } finally {
      await lock.query('SELECT RELEASE_LOCK(?)', ['toolflow_migrations']);
    }
  } finally {
    await lock.release();
  }
}
