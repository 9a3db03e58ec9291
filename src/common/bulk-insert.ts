import type { EntityManager, EntityMetadata, EntityTarget, ObjectLiteral } from 'typeorm';
import type { Driver } from 'typeorm/driver/Driver';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

/** Rows per statement: far below SQLite's limit of bound parameters for any table of ours. */
const ROWS_PER_STATEMENT = 500;

/**
 * Inserts whole rows with one multi-row INSERT per ROWS_PER_STATEMENT, its columns and values taken from the
 * entity's metadata and converted by the driver as TypeORM's own insert does (dates, JSON), but without the
 * query builder, whose cost grows with every named parameter (it was most of the CPU a run spent storing its
 * events). Every column must be set; no entity listeners or subscribers run. `?` placeholders: MySQL and SQLite.
 */
export async function bulkInsert<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  rows: readonly T[],
): Promise<void> {
  const { driver } = manager.connection;
  const { columns, head, tuple } = insertParts(manager, target);
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(start, start + ROWS_PER_STATEMENT);
    const parameters = chunk.flatMap((row) => columns.map((column) => persistentValue(driver, column, row)));
    await manager.query(head + chunk.map(() => tuple).join(', '), parameters);
  }
}

/**
 * Inserts one whole row, or overwrites every other column of the row with the same `key` (a primary or unique
 * column, by property name): one statement like TypeORM's upsert, built and converted as bulkInsert does, with
 * none of the query builder's cost (a run stores its checkpoint this way after every step).
 */
export async function upsertRow<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  row: T,
  key: keyof T & string,
): Promise<void> {
  const { driver } = manager.connection;
  const { columns, head, tuple } = insertParts(manager, target);
  const conflict = columns.find((column) => column.propertyName === key);
  if (!conflict) throw new Error(`upsertRow: ${key} is not a column`);
  const others = columns.filter((column) => column !== conflict).map((column) => driver.escape(column.databaseName));
  const update =
    driver.options.type === 'mysql'
      ? ` ON DUPLICATE KEY UPDATE ${others.map((name) => `${name} = VALUES(${name})`).join(', ')}`
      : ` ON CONFLICT (${driver.escape(conflict.databaseName)}) DO UPDATE SET ${others.map((name) => `${name} = excluded.${name}`).join(', ')}`;
  await manager.query(
    head + tuple + update,
    columns.map((column) => persistentValue(driver, column, row)),
  );
}

interface InsertParts {
  columns: ColumnMetadata[];
  /** `INSERT INTO table (columns) VALUES ` */
  head: string;
  /** One row's placeholders. */
  tuple: string;
}

const insertPartsOf = new WeakMap<EntityMetadata, InsertParts>();

function insertParts(manager: EntityManager, target: EntityTarget<ObjectLiteral>): InsertParts {
  const { driver } = manager.connection;
  const metadata = manager.connection.getMetadata(target);
  let parts = insertPartsOf.get(metadata);
  if (!parts) {
    const columns = metadata.columns;
    const names = columns.map((column) => driver.escape(column.databaseName)).join(', ');
    parts = {
      columns,
      head: `INSERT INTO ${driver.escape(metadata.tableName)} (${names}) VALUES `,
      tuple: `(${columns.map(() => '?').join(', ')})`,
    };
    insertPartsOf.set(metadata, parts);
  }
  return parts;
}

const persistentValue = (driver: Driver, column: ColumnMetadata, row: ObjectLiteral): unknown =>
  (driver.preparePersistentValue(column.getEntityValue(row), column) as unknown) ?? null;
