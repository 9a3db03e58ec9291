import type { EntityManager } from 'typeorm';
import { bulkInsert, insertRowIf } from '../common/plain-sql';
import type { RunCountLimits } from './run-admission';
import { IN_PROGRESS_STATUSES, RunEntity } from './run.entity';

/**
 * Stores `run` (a top-level run) only when the user's runs counted in the same statement leave room under
 * `limits` (none: a plain insert); true when stored. The counts are those RunUsageService reports to the quotas.
 */
export async function insertRunWithin(
  manager: EntityManager,
  run: RunEntity,
  limits: RunCountLimits,
): Promise<boolean> {
  if (limits.inProgress === undefined && !limits.createdSince) {
    await bulkInsert(manager, RunEntity, [run]);
    return true;
  }
  const { driver } = manager.connection;
  const metadata = manager.connection.getMetadata(RunEntity);
  const name = (property: keyof RunEntity): string => {
    const column = metadata.findColumnWithPropertyName(property);
    if (!column) throw new Error(`insertRunWithin: ${property} is not a column`);
    return driver.escape(column.databaseName);
  };
  const runsOfUser = `SELECT COUNT(*) FROM ${driver.escape(metadata.tableName)} WHERE ${name('userId')} = ? AND ${name('parentRunId')} IS NULL`;
  const conditions: string[] = [];
  const parameters: unknown[] = [];
  if (limits.inProgress !== undefined) {
    conditions.push(`(${runsOfUser} AND ${name('status')} IN (${IN_PROGRESS_STATUSES.map(() => '?').join(', ')})) < ?`);
    parameters.push(run.userId, ...IN_PROGRESS_STATUSES, limits.inProgress);
  }
  if (limits.createdSince) {
    const createdAt = metadata.findColumnWithPropertyName('createdAt');
    conditions.push(`(${runsOfUser} AND ${name('createdAt')} >= ?) < ?`);
    parameters.push(
      run.userId,
      createdAt ? driver.preparePersistentValue(limits.createdSince.from, createdAt) : limits.createdSince.from,
      limits.createdSince.limit,
    );
  }
  return insertRowIf(manager, RunEntity, run, 'id', { sql: conditions.join(' AND '), parameters });
}
