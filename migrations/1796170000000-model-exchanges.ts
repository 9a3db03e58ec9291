import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/** Every model call of a run, as sent and as answered (secrets masked), so the run can be replayed. */
export class ModelExchanges1796170000000 implements MigrationInterface {
  name = 'ModelExchanges1796170000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'model_exchanges',
        columns: [
          c.id(),
          c.string('run_id', 36),
          c.string('node_id', 128),
          c.int('call_index'),
          c.string('provider', 128),
          c.string('model', 256),
          c.json('request'),
          c.json('response'),
          c.int('duration_ms'),
          c.datetime('created_at'),
        ],
        indices: [
          new TableIndex({
            name: 'uq_model_exchanges_call',
            columnNames: ['run_id', 'node_id', 'call_index'],
            isUnique: true,
          }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('model_exchanges');
  }
}
