import type { EntityManager, EntityMetadata, EntityTarget, ObjectLiteral } from 'typeorm';
import type { Driver } from 'typeorm/driver/Driver';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

/*
 * Plain parameterised SQL for the statements every run issues (insert, upsert, update, increment, select by
 * columns): built from the entity's metadata and converted by the driver as the repository would, without the
 * query builder, whose CPU cost was larger than the statements' own on this path.
 */

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
 * Inserts one whole row only when `condition` (SQL with `?` parameters, typically counts of other rows) holds, in
 * one INSERT … SELECT … WHERE statement built and converted as bulkInsert does; true when the row was stored.
 * SQLite runs the statement under its write lock, so the check and the insert are one step across processes;
 * MySQL/MariaDB make it so only inside a transaction that serialises the writers (see the caller).
 */
export async function insertRowIf<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  row: T,
  key: keyof T & string,
  condition: { sql: string; parameters: unknown[] },
): Promise<boolean> {
  const { driver } = manager.connection;
  const { columns, into } = insertParts(manager, target);
  const values = columns.map(() => '?').join(', ');
  await manager.query(`${into} SELECT ${values} FROM (SELECT 1 AS one) AS candidate WHERE ${condition.sql}`, [
    ...columns.map((column) => persistentValue(driver, column, row)),
    ...condition.parameters,
  ]);
  const stored = await selectRows(manager, target, { [key]: row[key] } as Partial<T>);
  return stored.length === 1;
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
  const { sql, parameters } = upsertStatement(manager, target, row, key);
  await manager.query(sql, parameters);
}

/** upsertRow's statement, built but not sent (see inOrder). */
export function upsertStatement<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  row: T,
  key: keyof T & string,
): Statement {
  const { driver } = manager.connection;
  const { columns, head, tuple } = insertParts(manager, target);
  const conflict = columns.find((column) => column.propertyName === key);
  if (!conflict) throw new Error(`upsertRow: ${key} is not a column`);
  const others = columns.filter((column) => column !== conflict).map((column) => driver.escape(column.databaseName));
  const update =
    driver.options.type === 'mysql'
      ? ` ON DUPLICATE KEY UPDATE ${others.map((name) => `${name} = VALUES(${name})`).join(', ')}`
      : ` ON CONFLICT (${driver.escape(conflict.databaseName)}) DO UPDATE SET ${others.map((name) => `${name} = excluded.${name}`).join(', ')}`;
  return { sql: head + tuple + update, parameters: columns.map((column) => persistentValue(driver, column, row)) };
}

/**
 * Sets `changes` on the rows whose columns equal `where` (both by property name): one UPDATE like the
 * repository's, built and converted as bulkInsert does, with none of the query builder's cost (a run updates
 * its row and its node runs this way on every run).
 */
export async function updateRows<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  where: Partial<T>,
  changes: Partial<T>,
): Promise<void> {
  const { sql, parameters } = updateStatement(manager, target, where, changes);
  await manager.query(sql, parameters);
}

/** One statement with `?` placeholders and its parameters, built but not sent. */
export interface Statement {
  sql: string;
  parameters: unknown[];
}

/** updateRows' UPDATE, built but not sent (see inOrder). */
export function updateStatement<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  where: Partial<T>,
  changes: Partial<T>,
): Statement {
  const { driver } = manager.connection;
  const metadata = manager.connection.getMetadata(target);
  const set = columnsOf(metadata, changes);
  if (set.length === 0) throw new Error('updateRows: no column to set');
  const condition = whereClause(driver, metadata, where, 'updateRows');
  const assignments = set.map((column) => `${driver.escape(column.databaseName)} = ?`).join(', ');
  return {
    sql: `UPDATE ${driver.escape(metadata.tableName)} SET ${assignments} WHERE ${condition.sql}`,
    parameters: [...set.map((column) => persistentValue(driver, column, changes)), ...condition.parameters],
  };
}

/**
 * The INSERT of whole rows (at most ROWS_PER_STATEMENT), built as bulkInsert builds it, that leaves a row whose
 * primary key is stored already as it is: sent again (a retry after a lost answer), it stores nothing twice and
 * does not fail, so that the statements sent after it in the same inOrder still run. Not sent (see inOrder).
 */
export function insertNewStatement<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  rows: readonly T[],
): Statement {
  if (rows.length === 0 || rows.length > ROWS_PER_STATEMENT)
    throw new Error(`insertNewStatement: 1 to ${ROWS_PER_STATEMENT} rows`);
  const { driver } = manager.connection;
  const { columns, head, tuple } = insertParts(manager, target);
  const [key] = manager.connection.getMetadata(target).primaryColumns;
  if (!key) throw new Error('insertNewStatement: the entity has no primary column');
  const name = driver.escape(key.databaseName);
  const keep =
    driver.options.type === 'mysql' ? ` ON DUPLICATE KEY UPDATE ${name} = ${name}` : ' ON CONFLICT DO NOTHING';
  return {
    sql: head + rows.map(() => tuple).join(', ') + keep,
    parameters: rows.flatMap((row) => columns.map((column) => persistentValue(driver, column, row))),
  };
}

/**
 * Sends `statements` in order, each one committed on its own as if each were sent after the previous one
 * answered, and the ones after a failed one not run: on MySQL/MariaDB as one multi-statement query (one round
 * trip; the server stops at the first that fails), on SQLite one by one (in process: no round trip to save).
 * Not a transaction: a crash may leave the first ones stored and not the others, as with separate statements.
 */
export async function inOrder(manager: EntityManager, statements: readonly Statement[]): Promise<void> {
  if (manager.connection.options.type === 'mysql' && statements.length > 1) {
    await manager.query(
      statements.map((statement) => statement.sql).join(';\n'),
      statements.flatMap((statement) => statement.parameters),
    );
    return;
  }
  for (const { sql, parameters } of statements) await manager.query(sql, parameters);
}

/** Adds `by` to a numeric column of the rows whose columns equal `where`, in one UPDATE (see updateRows). */
export async function incrementColumn<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  where: Partial<T>,
  property: keyof T & string,
  by: number,
): Promise<void> {
  const { sql, parameters } = incrementStatement(manager, target, where, property, by);
  await manager.query(sql, parameters);
}

/** incrementColumn's UPDATE, built but not sent (see inOrder). */
export function incrementStatement<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  where: Partial<T>,
  property: keyof T & string,
  by: number,
): Statement {
  const { driver } = manager.connection;
  const metadata = manager.connection.getMetadata(target);
  const [column] = columnsOf(metadata, { [property]: 0 });
  if (!column) throw new Error(`incrementColumn: ${property} is not a column`);
  const condition = whereClause(driver, metadata, where, 'incrementColumn');
  const name = driver.escape(column.databaseName);
  return {
    sql: `UPDATE ${driver.escape(metadata.tableName)} SET ${name} = ${name} + ? WHERE ${condition.sql}`,
    parameters: [by, ...condition.parameters],
  };
}

/**
 * The rows whose columns equal `where` (by property name; an array value matches any of its elements), as
 * entities with every column converted by the driver as the repository's find converts it, but without the
 * query builder (a run reads its workflow and its tools this way when it starts). No relations, no listeners.
 */
export async function selectRows<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  where: { [K in keyof T]?: T[K] | readonly T[K][] },
): Promise<T[]> {
  const { driver } = manager.connection;
  const metadata = manager.connection.getMetadata(target);
  const condition = whereClause(driver, metadata, where, 'selectRows');
  const names = metadata.columns.map((column) => driver.escape(column.databaseName)).join(', ');
  const raw = await manager.query<Record<string, unknown>[]>(
    `SELECT ${names} FROM ${driver.escape(metadata.tableName)} WHERE ${condition.sql}`,
    condition.parameters,
  );
  return raw.map((row) => {
    const entity = metadata.create() as T;
    for (const column of metadata.columns) {
      column.setEntityValue(entity, driver.prepareHydratedValue(row[column.databaseName], column));
    }
    return entity;
  });
}

/** The columns of `metadata` whose property `values` sets (undefined counts as not set). */
const columnsOf = (metadata: EntityMetadata, values: ObjectLiteral): ColumnMetadata[] =>
  metadata.columns.filter((column) => column.getEntityValue(values) !== undefined);

/**
 * `a = ? AND b IN (?, ?)` over the columns `where` sets (by property name; an array value matches any of its
 * elements, none when empty), with its parameters converted as the repository converts them.
 */
function whereClause(
  driver: Driver,
  metadata: EntityMetadata,
  where: ObjectLiteral,
  caller: string,
): { sql: string; parameters: unknown[] } {
  const match = columnsOf(metadata, where);
  if (match.length === 0) throw new Error(`${caller}: no column to match`);
  const parameters: unknown[] = [];
  const conditions = match.map((column) => {
    const value = column.getEntityValue(where) as unknown;
    const name = driver.escape(column.databaseName);
    if (!Array.isArray(value)) {
      parameters.push(driver.preparePersistentValue(value, column) ?? null);
      return `${name} = ?`;
    }
    if (value.length === 0) return '1 = 0';
    const elements: unknown[] = value;
    for (const element of elements) parameters.push(driver.preparePersistentValue(element, column) as unknown);
    return `${name} IN (${elements.map(() => '?').join(', ')})`;
  });
  return { sql: conditions.join(' AND '), parameters };
}

interface InsertParts {
  columns: ColumnMetadata[];
  /** `INSERT INTO table (columns)` */
  into: string;
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
    const into = `INSERT INTO ${driver.escape(metadata.tableName)} (${names})`;
    parts = {
      columns,
      into,
      head: `${into} VALUES `,
      tuple: `(${columns.map(() => '?').join(', ')})`,
    };
    insertPartsOf.set(metadata, parts);
  }
  return parts;
}

const persistentValue = (driver: Driver, column: ColumnMetadata, row: ObjectLiteral): unknown =>
  (driver.preparePersistentValue(column.getEntityValue(row), column) as unknown) ?? null;
