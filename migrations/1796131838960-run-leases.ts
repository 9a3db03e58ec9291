import { TableColumn, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/** Which worker executes a run and until when its hold lasts without a heartbeat (queue mode takeover). */
export class RunLeases1796131838960 implements MigrationInterface {
  name = 'RunLeases1796131838960';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.addColumns('runs', [
      new TableColumn(c.string('lease_owner', 64, true)),
      new TableColumn(c.datetime('lease_expires_at', true)),
    ]);
    await queryRunner.createIndex(
      'runs',
      new TableIndex({ name: 'idx_runs_status_lease', columnNames: ['status', 'lease_expires_at'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('runs', 'idx_runs_status_lease');
    await queryRunner.dropColumns('runs', ['lease_owner', 'lease_expires_at']);
  }
}
