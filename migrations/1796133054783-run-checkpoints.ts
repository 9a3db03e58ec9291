import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/** One row per run that has a checkpoint: the state a resumed execution goes on from. */
export class RunCheckpoints1796133054783 implements MigrationInterface {
  name = 'RunCheckpoints1796133054783';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'run_checkpoints',
        columns: [c.id('run_id'), c.json('state'), c.datetime('updated_at')],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('run_checkpoints');
  }
}
