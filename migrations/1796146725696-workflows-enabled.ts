import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/** Workflows can be disabled (by hand, or by a forced delete of a tool they use): a disabled one refuses new runs. */
export class WorkflowsEnabled1796146725696 implements MigrationInterface {
  name = 'WorkflowsEnabled1796146725696';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.addColumn('workflows', new TableColumn({ ...c.boolean('enabled'), default: true }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('workflows', 'enabled');
  }
}
