import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';

/** Tools whose calls inside a run wait for a person; existing dangerous tools get the default of their effect. */
export class ToolRequiresApproval1796141780697 implements MigrationInterface {
  name = 'ToolRequiresApproval1796141780697';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['tools', 'tool_versions']) {
      await queryRunner.addColumn(
        table,
        new TableColumn({ name: 'requires_approval', type: 'boolean', isNullable: false, default: false }),
      );
      await queryRunner.query(`UPDATE ${table} SET requires_approval = ? WHERE effect = ?`, [1, 'dangerous']);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('tool_versions', 'requires_approval');
    await queryRunner.dropColumn('tools', 'requires_approval');
  }
}
