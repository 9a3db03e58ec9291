import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/** The name of the API key that decided an approval: a run's page says who edited the arguments that ran. */
export class ApprovalDecidedKeyName1796180000000 implements MigrationInterface {
  name = 'ApprovalDecidedKeyName1796180000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.addColumn('run_approvals', new TableColumn(c.string('decided_key_name', 128, true)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('run_approvals', 'decided_key_name');
  }
}
