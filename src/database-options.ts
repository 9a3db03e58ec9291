import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import { migrations } from '../migrations';
import { ApiKeyEntity } from './api-keys/api-key.entity';
import { IdempotencyKeyEntity } from './common/idempotency/idempotency-key.entity';
import { NodeRunEntity } from './runs/node-run.entity';
import { RunEventEntity } from './runs/run-event.entity';
import { RunEntity } from './runs/run.entity';
import { ToolResultEntity } from './runs/tool-result.entity';
import { ToolCallLogEntity } from './registry/tool-call-log.entity';
import { WorkflowEntity } from './workflow/workflow.entity';
import { ToolEntity } from './tools/tool.entity';
import type { DatabaseConfig } from './config/app-config';

export const entities = [
  ToolEntity,
  ApiKeyEntity,
  ToolCallLogEntity,
  WorkflowEntity,
  RunEntity,
  NodeRunEntity,
  RunEventEntity,
  IdempotencyKeyEntity,
  ToolResultEntity,
];

/** One DataSource definition (a root file: it lists every module's entities) for the app, the TypeORM CLI (ormconfig.ts) and the tests. Never synchronize. */
export function databaseOptions(database: DatabaseConfig, migrationsRun: boolean): DataSourceOptions {
  const common = { entities, migrations, migrationsRun, synchronize: false, logging: false } as const;
  if (database.type === 'mysql') {
    return {
      ...common,
      type: 'mysql',
      url: database.url,
      charset: 'utf8mb4_unicode_ci',
      timezone: 'Z',
      connectorPackage: 'mysql2',
      extra: { connectionLimit: 20 },
    };
  }
  if (database.database !== ':memory:') mkdirSync(dirname(database.database), { recursive: true });
  return {
    ...common,
    type: 'better-sqlite3',
    database: database.database,
    enableWAL: true,
    prepareDatabase: (db: { pragma(statement: string): unknown }) => {
      db.pragma('busy_timeout = 5000');
      db.pragma('foreign_keys = ON');
    },
  };
}
