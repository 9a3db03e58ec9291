import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/** The owner's role travels with the run, so that any process can execute it with the owner's tool visibility. */
export class RunOwnerRole1796131605790 implements MigrationInterface {
  name = 'RunOwnerRole1796131605790';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.addColumn('runs', new TableColumn({ ...c.string('user_role', 16), default: "'user'" }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('runs', 'user_role');
  }
}
