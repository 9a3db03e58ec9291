import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/** Every version of a tool, kept: what it looked like then, to read, roll back to, and pin a run to. */
export class ToolVersions1796136125259 implements MigrationInterface {
  name = 'ToolVersions1796136125259';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'tool_versions',
        columns: [
          c.id(),
          c.string('tool_id', 36),
          c.int('version'),
          c.string('name', 64),
          c.text('description'),
          c.string('category', 64),
          c.json('function_schema'),
          c.string('implementation_type', 16),
          c.json('implementation_config'),
          c.string('effect', 16),
          c.datetime('created_at'),
        ],
        indices: [
          new TableIndex({
            name: 'uq_tool_versions_tool_version',
            columnNames: ['tool_id', 'version'],
            isUnique: true,
          }),
        ],
      }),
    );
    // The tools that exist keep their current state as their first recorded version.
    await queryRunner.query(
      `INSERT INTO tool_versions (id, tool_id, version, name, description, category, function_schema,
         implementation_type, implementation_config, effect, created_at)
       SELECT id, id, version, name, description, category, function_schema, implementation_type,
         implementation_config, effect, updated_at FROM tools`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('tool_versions');
  }
}
