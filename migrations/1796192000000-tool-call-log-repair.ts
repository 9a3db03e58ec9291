import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/** How a logged call was repaired from a weak model's answer (json_answer, tool_call_tag, arguments, …); null: it was not. */
export class ToolCallLogRepair1796192000000 implements MigrationInterface {
  name = 'ToolCallLogRepair1796192000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.addColumn('tool_call_logs', new TableColumn(c.string('repair', 32, true)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('tool_call_logs', 'repair');
  }
}
