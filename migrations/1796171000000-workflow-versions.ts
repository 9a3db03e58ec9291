import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/** Every saved version of a workflow, kept: to read, compare, roll back to, and run a test suite against. */
export class WorkflowVersions1796171000000 implements MigrationInterface {
  name = 'WorkflowVersions1796171000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'workflow_versions',
        columns: [
          c.id(),
          c.string('workflow_id', 36),
          c.int('version'),
          c.string('name', 128),
          c.text('description'),
          c.json('definition'),
          c.string('created_by', 64),
          c.datetime('created_at'),
        ],
        indices: [
          new TableIndex({
            name: 'uq_workflow_versions_workflow_version',
            columnNames: ['workflow_id', 'version'],
            isUnique: true,
          }),
        ],
      }),
    );
    // The workflows that exist keep their current state as their first recorded version.
    await queryRunner.query(
      `INSERT INTO workflow_versions (id, workflow_id, version, name, description, definition, created_by, created_at)
       SELECT id, id, version, name, description, definition, user_id, updated_at FROM workflows`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('workflow_versions');
  }
}
