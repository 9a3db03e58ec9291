import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Which tool versions the seeder wrote from the code (not a person): a builtin whose current version is one of
 * them follows the code as a new version. Every existing first version of a seed (no owner) was the seeder's.
 */
export class ToolVersionsSeeded1796164178717 implements MigrationInterface {
  name = 'ToolVersionsSeeded1796164178717';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'tool_versions',
      new TableColumn({ name: 'seeded', type: 'boolean', isNullable: false, default: false }),
    );
    await queryRunner.query(
      'UPDATE tool_versions SET seeded = ? WHERE version = 1 AND tool_id IN (SELECT id FROM tools WHERE user_id IS NULL)',
      [1],
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('tool_versions', 'seeded');
  }
}
