import { TableColumn, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/**
 * Tool and workflow names become unique per owner instead of globally (a 409 on create told one user the names
 * of another's private tools). `public_name` is the name of a public row and NULL otherwise, so one unique index
 * keeps public names unique among public rows on MySQL and SQLite alike (both let NULLs repeat).
 */
export class NamesPerOwner1796133231276 implements MigrationInterface {
  name = 'NamesPerOwner1796133231276';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    for (const [table, length] of [
      ['tools', 64],
      ['workflows', 128],
    ] as const) {
      await queryRunner.addColumn(table, new TableColumn(c.string('public_name', length, true)));
      await queryRunner.query(`UPDATE ${table} SET public_name = name WHERE is_public = 1`);
      await queryRunner.dropIndex(table, `uq_${table}_name`);
      await queryRunner.createIndex(
        table,
        new TableIndex({ name: `uq_${table}_owner_name`, columnNames: ['user_id', 'name'], isUnique: true }),
      );
      await queryRunner.createIndex(
        table,
        new TableIndex({ name: `uq_${table}_public_name`, columnNames: ['public_name'], isUnique: true }),
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['tools', 'workflows']) {
      await queryRunner.dropIndex(table, `uq_${table}_public_name`);
      await queryRunner.dropIndex(table, `uq_${table}_owner_name`);
      await queryRunner.dropColumn(table, 'public_name');
      await queryRunner.createIndex(
        table,
        new TableIndex({ name: `uq_${table}_name`, columnNames: ['name'], isUnique: true }),
      );
    }
  }
}
