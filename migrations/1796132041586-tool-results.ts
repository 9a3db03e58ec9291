import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

export class ToolResults1796132041586 implements MigrationInterface {
  name = 'ToolResults1796132041586';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    const mysql = queryRunner.connection.options.type === 'mysql';
    await queryRunner.createTable(
      new Table({
        name: 'tool_results',
        columns: [
          c.id(),
          c.string('run_id', 36),
          c.string('node_id', 128),
          c.string('call_id', 128),
          c.string('tool_name', 64),
          // Results of several megabytes, in any script: past MEDIUMTEXT's 16 MB in UTF-8.
          { name: 'content', type: mysql ? 'longtext' : 'text' },
          c.int('chars'),
          c.datetime('created_at'),
        ],
        indices: [new TableIndex({ name: 'idx_tool_results_run', columnNames: ['run_id'] })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('tool_results');
  }
}
