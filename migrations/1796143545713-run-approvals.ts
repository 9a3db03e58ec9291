import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/** Tool calls of runs that wait for a person's decision, and the decisions. */
export class RunApprovals1796143545713 implements MigrationInterface {
  name = 'RunApprovals1796143545713';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'run_approvals',
        columns: [
          c.id(),
          c.string('run_id', 36),
          c.string('node_id', 128),
          c.string('call_id', 128),
          c.string('tool_name', 64),
          c.json('arguments'),
          c.json('parameters'),
          c.string('status', 16),
          c.json('decided_arguments', true),
          c.text('comment', true),
          c.string('user_id', 64),
          c.string('decided_by', 64, true),
          c.datetime('requested_at'),
          c.datetime('decided_at', true),
        ],
        indices: [
          new TableIndex({
            name: 'uq_run_approvals_call',
            columnNames: ['run_id', 'node_id', 'call_id'],
            isUnique: true,
          }),
          new TableIndex({ name: 'idx_run_approvals_user_status', columnNames: ['user_id', 'status'] }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('run_approvals');
  }
}
