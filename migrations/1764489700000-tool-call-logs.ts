import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

export class ToolCallLogs1764489700000 implements MigrationInterface {
  name = 'ToolCallLogs1764489700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'tool_call_logs',
        columns: [
          c.id(),
          c.string('tool_id', 64, true),
          c.string('tool_name', 64),
          c.int('tool_version', true),
          c.string('run_id', 36, true),
          c.string('node_id', 128, true),
          c.string('call_id', 128, true),
          c.string('user_id', 64),
          c.text('input'),
          c.text('output', true),
          c.string('status', 24),
          c.text('error_message', true),
          c.int('duration_ms'),
          c.datetime('started_at'),
          c.datetime('created_at'),
        ],
        indices: [
          new TableIndex({ name: 'idx_tool_call_logs_tool_created', columnNames: ['tool_id', 'created_at'] }),
          new TableIndex({ name: 'idx_tool_call_logs_run', columnNames: ['run_id'] }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('tool_call_logs');
  }
}
