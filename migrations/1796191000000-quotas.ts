import { Table, TableColumn, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/**
 * Quotas per user, and what each model call used (tokens, cost) beside its exchange, so that usage and quotas
 * count the same rows. Exchanges stored before this count 0 tokens and an unknown cost.
 */
export class Quotas1796191000000 implements MigrationInterface {
  name = 'Quotas1796191000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.addColumns('model_exchanges', [
      new TableColumn({ ...c.int('prompt_tokens'), default: 0 }),
      new TableColumn({ ...c.int('completion_tokens'), default: 0 }),
      new TableColumn({ ...c.int('total_tokens'), default: 0 }),
      new TableColumn({ name: 'cost_nanos', type: 'bigint', isNullable: true }),
      new TableColumn(c.string('cost_currency', 8, true)),
    ]);
    await queryRunner.createIndex(
      'model_exchanges',
      new TableIndex({ name: 'idx_model_exchanges_created', columnNames: ['created_at'] }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'quotas',
        columns: [{ ...c.string('user_id', 64), isPrimary: true }, c.json('limits'), c.datetime('updated_at')],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('quotas');
    await queryRunner.dropIndex('model_exchanges', 'idx_model_exchanges_created');
    for (const column of ['cost_currency', 'cost_nanos', 'total_tokens', 'completion_tokens', 'prompt_tokens']) {
      await queryRunner.dropColumn('model_exchanges', column);
    }
  }
}
