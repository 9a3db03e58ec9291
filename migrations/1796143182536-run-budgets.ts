import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/** A run's own budgets (tokens, tool calls, time) and why it stopped, so a budget's end reads apart from a failure. */
export class RunBudgets1796143182536 implements MigrationInterface {
  name = 'RunBudgets1796143182536';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.addColumns('runs', [
      new TableColumn(c.json('budgets', true)),
      new TableColumn(c.string('stop_reason', 32, true)),
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumns('runs', ['budgets', 'stop_reason']);
  }
}
