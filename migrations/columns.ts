import type { QueryRunner, TableColumnOptions } from 'typeorm';

/** Column builders that give the same logical schema on MySQL/MariaDB and SQLite. */
export function columns(queryRunner: QueryRunner) {
  const mysql = queryRunner.connection.options.type === 'mysql';
  return {
    id: (name = 'id'): TableColumnOptions => ({ name, type: 'varchar', length: '36', isPrimary: true }),
    string: (name: string, length: number, nullable = false): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable: nullable,
    }),
    text: (name: string, nullable = false): TableColumnOptions => ({
      name,
      type: mysql ? 'mediumtext' : 'text',
      isNullable: nullable,
    }),
    json: (name: string, nullable = false): TableColumnOptions => ({
      name,
      type: mysql ? 'json' : 'text',
      isNullable: nullable,
    }),
    int: (name: string, nullable = false): TableColumnOptions => ({ name, type: 'int', isNullable: nullable }),
    bigint: (name: string, nullable = false): TableColumnOptions => ({
      name,
      type: mysql ? 'bigint' : 'integer',
      isNullable: nullable,
    }),
    boolean: (name: string): TableColumnOptions => ({ name, type: 'boolean' }),
    datetime: (name: string, nullable = false): TableColumnOptions => ({
      name,
      type: 'datetime',
      precision: mysql ? 3 : undefined,
      isNullable: nullable,
    }),
  };
}
