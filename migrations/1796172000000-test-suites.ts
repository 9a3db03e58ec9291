import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/** A workflow's test suite (its cases), and the stored results of each run of it. */
export class TestSuites1796172000000 implements MigrationInterface {
  name = 'TestSuites1796172000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'test_suites',
        columns: [
          c.id(),
          c.string('workflow_id', 36),
          c.json('cases'),
          c.string('user_id', 64),
          c.datetime('created_at'),
          c.datetime('updated_at'),
        ],
        indices: [new TableIndex({ name: 'uq_test_suites_workflow', columnNames: ['workflow_id'], isUnique: true })],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'test_runs',
        columns: [
          c.id(),
          c.string('suite_id', 36),
          c.string('workflow_id', 36),
          c.int('workflow_version', true),
          c.string('status', 16),
          c.json('summary'),
          c.json('results'),
          c.json('comparison', true),
          c.string('previous_test_run_id', 36, true),
          c.string('user_id', 64),
          c.datetime('created_at'),
          c.datetime('finished_at', true),
        ],
        indices: [
          new TableIndex({ name: 'idx_test_runs_workflow_created', columnNames: ['workflow_id', 'created_at'] }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('test_runs');
    await queryRunner.dropTable('test_suites');
  }
}
