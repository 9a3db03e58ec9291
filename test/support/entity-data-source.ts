import { DataSource, type DataSourceOptions } from 'typeorm';

/** SQLite in memory: a fresh, empty database per DataSource. */
export const SQLITE_IN_MEMORY: DataSourceOptions = { type: 'better-sqlite3', database: ':memory:' };

/**
 * An initialized DataSource whose tables are made from `entities` alone (no migrations), over `options` (SQLite in
 * memory unless given, e.g. a FreshDatabase's): for a spec of one store or one SQL helper.
 */
export function entityDataSource(
  entities: NonNullable<DataSourceOptions['entities']>,
  options: DataSourceOptions = SQLITE_IN_MEMORY,
): Promise<DataSource> {
  return new DataSource({ ...options, entities, synchronize: true }).initialize();
}
