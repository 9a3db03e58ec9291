import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/** The CPU time a code-tool call used (ms), what code_cpu_seconds_per_day counts; null: not measured. */
export class ToolCallLogCpu1796196000000 implements MigrationInterface {
  name = 'ToolCallLogCpu1796196000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.addColumn('tool_call_logs', new TableColumn(c.int('cpu_ms', true)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('tool_call_logs', 'cpu_ms');
  }
}
