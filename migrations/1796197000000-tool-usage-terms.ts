import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/** Tool selection's learning from use, per owner, tool and term (was kept in each process's memory only). */
export class ToolUsageTerms1796197000000 implements MigrationInterface {
  name = 'ToolUsageTerms1796197000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'tool_usage_terms',
        columns: [
          { ...c.string('owner_id', 64), isPrimary: true },
          { ...c.string('tool_key', 128), isPrimary: true },
          { ...c.string('term', 32), isPrimary: true },
          { name: 'weight', type: 'double' },
          c.datetime('updated_at'),
        ],
      }),
    );
    await queryRunner.createIndex(
      'tool_usage_terms',
      new TableIndex({ name: 'idx_tool_usage_terms_tool_key', columnNames: ['tool_key'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('tool_usage_terms');
  }
}
