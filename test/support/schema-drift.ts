import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import type { EntityMetadata } from 'typeorm/metadata/EntityMetadata';
import type { DataSource, Table, TableColumn } from 'typeorm';

/** One way the schema the migrations built differs from what an entity declares, as TypeORM reads both. */
export interface SchemaDifference {
  table: string;
  /** A column, or `index <name>` / `foreign keys` / `table` for what is not a column. */
  subject: string;
  kind: 'type' | 'length' | 'precision' | 'width' | 'default' | 'nullable' | 'primary' | 'missing' | 'extra' | 'other';
  database: string;
  entity: string;
}

export interface SchemaDrift {
  /** Differences that no quirk of QUIRKS explains: each is a real mismatch between an entity and the migrations. */
  unexpected: SchemaDifference[];
  /** Differences explained by a quirk, with its name. */
  quirks: Array<SchemaDifference & { quirk: string }>;
  /** The SQL `createSchemaBuilder().log()` would run (what `npm run migration:generate` writes). */
  upQueries: string[];
  /** Up-queries that touch nothing but quirk-only columns: every other one is drift. */
  unexplainedQueries: string[];
}

type Dialect = 'mysql' | 'mariadb' | 'sqlite';

interface Quirk {
  name: string;
  dialects: Dialect[];
  matches(difference: SchemaDifference): boolean;
}

/**
 * Differences TypeORM reports that are not mismatches, and that no entity can declare away. Each one says why;
 * anything else fails the drift tests.
 */
const QUIRKS: Quirk[] = [
  {
    // MariaDB reports a nullable column without a default as COLUMN_DEFAULT 'NULL'; TypeORM reads that as "no
    // default" only with `type: 'mariadb'`, and the app uses `type: 'mysql'` for both servers.
    name: 'mariadb-null-default',
    dialects: ['mariadb'],
    matches: (difference) =>
      difference.kind === 'default' && difference.database === "'NULL'" && difference.entity === 'undefined',
  },
  {
    // MariaDB's JSON is LONGTEXT with a json_valid() CHECK. TypeORM accepts that for a column that differs in
    // nothing else, and lists it (as DROP + ADD) once the null default above makes the column differ.
    name: 'mariadb-json-is-longtext',
    dialects: ['mariadb'],
    matches: (difference) =>
      difference.kind === 'type' && difference.database === 'longtext' && difference.entity === 'json',
  },
  {
    // The migrations make text columns MEDIUMTEXT (LONGTEXT for tool_results.content) on MySQL: logs, errors and
    // tool results outgrow TEXT's 64 KB. The entity cannot say so: the same entity runs on SQLite, where TypeORM
    // refuses 'mediumtext'. TypeORM's TEXT would cut stored values; never apply that part of a generated migration.
    name: 'mysql-text-is-mediumtext',
    dialects: ['mysql', 'mariadb'],
    matches: (difference) =>
      difference.kind === 'type' &&
      ['mediumtext', 'longtext'].includes(difference.database) &&
      difference.entity === 'text',
  },
  {
    // SQLite has type affinity, not types: INT and INTEGER are both INTEGER. TypeORM turns the entity's 'int' into
    // 'integer' but reads back the name the migration wrote.
    name: 'sqlite-int-is-integer',
    dialects: ['sqlite'],
    matches: (difference) =>
      difference.kind === 'type' && difference.database === 'int' && difference.entity === 'integer',
  },
  {
    // The migrations declare JSON columns TEXT on SQLite (TEXT affinity keeps the JSON text as written; a column
    // declared "json" gets NUMERIC affinity). The entity must say 'json' so that TypeORM (de)serializes it.
    name: 'sqlite-json-is-text',
    dialects: ['sqlite'],
    matches: (difference) =>
      difference.kind === 'type' && difference.database === 'text' && difference.entity === 'json',
  },
  {
    // SQLite keeps datetimes as text (TypeORM writes milliseconds) and has no precision; MySQL needs DATETIME(3).
    name: 'sqlite-datetime-has-no-precision',
    dialects: ['sqlite'],
    matches: (difference) =>
      difference.kind === 'precision' && difference.database === 'undefined' && difference.entity === '3',
  },
  {
    // The migrations wrote boolean defaults as `DEFAULT true|false`; SQLite keeps the literal, TypeORM writes 1|0.
    name: 'sqlite-boolean-default-literal',
    dialects: ['sqlite'],
    matches: (difference) =>
      difference.kind === 'default' &&
      ((difference.database === 'true' && difference.entity === '1') ||
        (difference.database === 'false' && difference.entity === '0')),
  },
];

/** The drift between the entities of `dataSource` and the schema of its database (migrations applied). */
export async function findSchemaDrift(dataSource: DataSource): Promise<SchemaDrift> {
  const dialect = await dialectOf(dataSource);
  const differences: SchemaDifference[] = [];
  const queryRunner = dataSource.createQueryRunner();
  try {
    for (const metadata of dataSource.entityMetadatas) {
      const table = await queryRunner.getTable(metadata.tablePath);
      if (!table) {
        differences.push({ table: metadata.tableName, subject: 'table', kind: 'missing', database: '-', entity: '-' });
        continue;
      }
      differences.push(...columnDifferences(dataSource, metadata, table), ...indexDifferences(metadata, table));
    }
  } finally {
    await queryRunner.release();
  }
  const quirks: SchemaDrift['quirks'] = [];
  const unexpected: SchemaDifference[] = [];
  for (const difference of differences) {
    const quirk = QUIRKS.find((candidate) => candidate.dialects.includes(dialect) && candidate.matches(difference));
    if (quirk) quirks.push({ ...difference, quirk: quirk.name });
    else unexpected.push(difference);
  }
  const upQueries = (await dataSource.driver.createSchemaBuilder().log()).upQueries.map((query) => query.query);
  const explained = explainedBy(dataSource, dialect, quirks, unexpected);
  return { unexpected, quirks, upQueries, unexplainedQueries: upQueries.filter((query) => !explained(query)) };
}

async function dialectOf(dataSource: DataSource): Promise<Dialect> {
  if (dataSource.options.type !== 'mysql') return 'sqlite';
  const rows = await dataSource.query<Array<{ version: string }>>('SELECT VERSION() AS version');
  return /mariadb/i.test(rows[0]?.version ?? '') ? 'mariadb' : 'mysql';
}

/** TypeORM's own verdict (findChangedColumns), broken down into the attributes that differ. */
function columnDifferences(dataSource: DataSource, metadata: EntityMetadata, table: Table): SchemaDifference[] {
  const driver = dataSource.driver;
  const differences: SchemaDifference[] = [];
  const push = (subject: string, kind: SchemaDifference['kind'], database: unknown, entity: unknown) =>
    differences.push({ table: table.name, subject, kind, database: String(database), entity: String(entity) });
  const changed = new Set(driver.findChangedColumns(table.columns, metadata.columns));
  for (const column of metadata.columns) {
    const tableColumn = table.columns.find((candidate) => candidate.name === column.databaseName);
    if (!tableColumn) push(column.databaseName, 'missing', '-', column.type);
    else if (changed.has(column)) {
      const found = attributeDifferences(dataSource, column, tableColumn);
      if (found.length === 0) push(column.databaseName, 'other', '?', '?');
      for (const [kind, database, entity] of found) push(column.databaseName, kind, database, entity);
    }
  }
  for (const tableColumn of table.columns) {
    if (!metadata.columns.some((column) => column.databaseName === tableColumn.name)) {
      push(tableColumn.name, 'extra', tableColumn.type, '-');
    }
  }
  if (table.foreignKeys.length !== metadata.foreignKeys.length) {
    push('foreign keys', 'other', table.foreignKeys.length, metadata.foreignKeys.length);
  }
  return differences;
}

function attributeDifferences(
  dataSource: DataSource,
  column: ColumnMetadata,
  tableColumn: TableColumn,
): Array<[SchemaDifference['kind'], unknown, unknown]> {
  const driver = dataSource.driver;
  const mysql = dataSource.options.type === 'mysql';
  const found: Array<[SchemaDifference['kind'], unknown, unknown]> = [];
  const type = driver.normalizeType(column);
  if (tableColumn.type !== type) found.push(['type', tableColumn.type, type]);
  const length = mysql ? driver.getColumnLength(column) : column.length;
  if (tableColumn.length !== length) found.push(['length', tableColumn.length, length]);
  const precisionCounts = !mysql || column.precision !== undefined;
  if (precisionCounts && tableColumn.precision !== column.precision) {
    found.push(['precision', tableColumn.precision, column.precision]);
  }
  if (mysql && tableColumn.width !== column.width) found.push(['width', tableColumn.width, column.width]);
  const entityDefault = driver.normalizeDefault(column);
  const unquote = (value: unknown) => (typeof value === 'string' && mysql ? value.replace(/^'+|'+$/g, '') : value);
  if (unquote(entityDefault) !== unquote(tableColumn.default)) {
    found.push(['default', tableColumn.default, entityDefault]);
  }
  if (tableColumn.isNullable !== column.isNullable) found.push(['nullable', tableColumn.isNullable, column.isNullable]);
  if (tableColumn.isPrimary !== column.isPrimary) found.push(['primary', tableColumn.isPrimary, column.isPrimary]);
  return found;
}

function indexDifferences(metadata: EntityMetadata, table: Table): SchemaDifference[] {
  const describe = (unique: boolean | undefined, columns: string[]) =>
    `${unique ? 'unique ' : ''}(${columns.join(', ')})`;
  const differences: SchemaDifference[] = [];
  for (const index of metadata.indices) {
    const entity = describe(
      index.isUnique,
      index.columns.map((column) => column.databaseName),
    );
    const found = table.indices.find((candidate) => candidate.name === index.name);
    const database = found ? describe(found.isUnique, found.columnNames) : '-';
    if (database !== entity) {
      differences.push({ table: table.name, subject: `index ${index.name}`, kind: 'other', database, entity });
    }
  }
  for (const index of table.indices) {
    if (!metadata.indices.some((candidate) => candidate.name === index.name)) {
      const database = describe(index.isUnique, index.columnNames);
      differences.push({ table: table.name, subject: `index ${index.name}`, kind: 'extra', database, entity: '-' });
    }
  }
  return differences;
}

/**
 * Whether an up-query only rewrites what quirks explain. TypeORM redoes a changed MySQL column (CHANGE, or DROP +
 * ADD) and the indexes on it; SQLite rebuilds the whole table (temporary_<table>, copy, rename, its indexes).
 */
function explainedBy(
  dataSource: DataSource,
  dialect: Dialect,
  quirks: SchemaDrift['quirks'],
  unexpected: SchemaDifference[],
): (query: string) => boolean {
  const quirkColumns = new Set(quirks.map((difference) => `${difference.table}.${difference.subject}`));
  const indexesOf = (table: string) =>
    dataSource.entityMetadatas.find((metadata) => metadata.tableName === table)?.indices ?? [];
  if (dialect !== 'sqlite') {
    return (query) => {
      const column = /^ALTER TABLE `(\w+)` (?:CHANGE|DROP COLUMN|ADD) `(\w+)`/.exec(query);
      if (column) return quirkColumns.has(`${column[1]}.${column[2]}`);
      const index = /^(?:DROP|CREATE)(?: UNIQUE)? INDEX `(\w+)` ON `(\w+)`/.exec(query);
      if (!index) return false;
      const [, name, table] = index;
      const metadata = indexesOf(table).find((candidate) => candidate.name === name);
      return !!metadata?.columns.some((column) => quirkColumns.has(`${table}.${column.databaseName}`));
    };
  }
  const driftingTables = new Set(unexpected.map((difference) => difference.table));
  const rebuilt = new Set(quirks.map((difference) => difference.table).filter((table) => !driftingTables.has(table)));
  return (query) => {
    const table = /^(?:CREATE TABLE|INSERT INTO|DROP TABLE|ALTER TABLE) "(?:temporary_)?(\w+)"/.exec(query)?.[1];
    if (table) return rebuilt.has(table);
    const index = /^(?:DROP|CREATE)(?: UNIQUE)? INDEX "(\w+)"/.exec(query)?.[1];
    return [...rebuilt].some((name) => indexesOf(name).some((candidate) => candidate.name === index));
  };
}
