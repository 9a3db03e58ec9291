import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/**
 * Who runs a test run and when it last said so: a running test run whose heartbeat went stale (its process died)
 * is ended with `error` saying so; `error` also holds why a test run ended early for any other reason.
 */
export class TestRunHeartbeat1796198000000 implements MigrationInterface {
  name = 'TestRunHeartbeat1796198000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.addColumns('test_runs', [
      new TableColumn(c.string('owner', 80, true)),
      new TableColumn(c.datetime('heartbeat_at', true)),
      new TableColumn(c.text('error', true)),
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumns('test_runs', ['owner', 'heartbeat_at', 'error']);
  }
}
