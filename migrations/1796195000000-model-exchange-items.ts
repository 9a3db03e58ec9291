import { TableColumn, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/**
 * The map item or loop iteration each recorded model call ran in, so a replay answers parallel items with their
 * own calls. Rows recorded before have '' (a replay answers them per node, as they were recorded); the call index
 * counts per node and item from now on, so the unique key includes the item.
 */
export class ModelExchangeItems1796195000000 implements MigrationInterface {
  name = 'ModelExchangeItems1796195000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.addColumn('model_exchanges', new TableColumn({ ...c.string('item', 255), default: "''" }));
    await queryRunner.dropIndex('model_exchanges', 'uq_model_exchanges_call');
    await queryRunner.createIndex(
      'model_exchanges',
      new TableIndex({
        name: 'uq_model_exchanges_item_call',
        columnNames: ['run_id', 'node_id', 'item', 'call_index'],
        isUnique: true,
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Calls of the same node in different items may share an index: renumber them per node before the old key.
    await queryRunner.dropIndex('model_exchanges', 'uq_model_exchanges_item_call');
    const rows = (await queryRunner.query(
      "SELECT id, run_id, node_id FROM model_exchanges WHERE item <> '' ORDER BY run_id, node_id, created_at, item, call_index",
    )) as Array<{ id: string; run_id: string; node_id: string }>;
    const next = new Map<string, number>();
    for (const row of rows) {
      const key = `${row.run_id}/${row.node_id}`;
      const index = next.get(key) ?? 1_000_000;
      next.set(key, index + 1);
      await queryRunner.query('UPDATE model_exchanges SET call_index = ? WHERE id = ?', [index, row.id]);
    }
    await queryRunner.dropColumn('model_exchanges', 'item');
    await queryRunner.createIndex(
      'model_exchanges',
      new TableIndex({
        name: 'uq_model_exchanges_call',
        columnNames: ['run_id', 'node_id', 'call_index'],
        isUnique: true,
      }),
    );
  }
}
