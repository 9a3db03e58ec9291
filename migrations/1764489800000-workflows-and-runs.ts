import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

export class WorkflowsAndRuns1764489800000 implements MigrationInterface {
  name = 'WorkflowsAndRuns1764489800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'workflows',
        columns: [
          c.id(),
          c.string('name', 128),
          c.text('description'),
          c.json('definition'),
          c.boolean('is_public'),
          c.string('user_id', 64),
          c.int('version'),
          c.datetime('created_at'),
          c.datetime('updated_at'),
        ],
        indices: [
          new TableIndex({ name: 'uq_workflows_name', columnNames: ['name'], isUnique: true }),
          new TableIndex({ name: 'idx_workflows_user_id', columnNames: ['user_id'] }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'runs',
        columns: [
          c.id(),
          c.string('workflow_id', 36, true),
          c.int('workflow_version', true),
          c.string('parent_run_id', 36, true),
          c.int('depth'),
          c.json('definition'),
          c.string('status', 16),
          c.json('inputs'),
          c.json('outputs', true),
          c.text('error', true),
          c.json('usage'),
          c.string('user_id', 64),
          c.datetime('created_at'),
          c.datetime('started_at', true),
          c.datetime('finished_at', true),
        ],
        indices: [
          new TableIndex({ name: 'idx_runs_user_created', columnNames: ['user_id', 'created_at'] }),
          new TableIndex({ name: 'idx_runs_status', columnNames: ['status'] }),
          new TableIndex({ name: 'idx_runs_workflow', columnNames: ['workflow_id'] }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'node_runs',
        columns: [
          c.id(),
          c.string('run_id', 36),
          c.string('node_id', 128),
          c.string('node_type', 16),
          c.string('status', 16),
          c.json('output', true),
          c.text('error', true),
          c.datetime('started_at'),
          c.datetime('finished_at', true),
        ],
        indices: [new TableIndex({ name: 'idx_node_runs_run', columnNames: ['run_id'] })],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'run_events',
        columns: [
          c.id(),
          c.string('run_id', 36),
          c.int('seq'),
          c.string('type', 32),
          c.json('data'),
          c.datetime('created_at'),
        ],
        indices: [new TableIndex({ name: 'uq_run_events_run_seq', columnNames: ['run_id', 'seq'], isUnique: true })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('run_events');
    await queryRunner.dropTable('node_runs');
    await queryRunner.dropTable('runs');
    await queryRunner.dropTable('workflows');
  }
}
