import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/** The tool versions a run pinned when it was created (tool name → tool id and version); null on older runs. */
export class RunToolPins1796141861172 implements MigrationInterface {
  name = 'RunToolPins1796141861172';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.addColumn('runs', new TableColumn(c.json('tool_pins', true)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('runs', 'tool_pins');
  }
}
