import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

export class ToolEmbeddings1796153083923 implements MigrationInterface {
  name = 'ToolEmbeddings1796153083923';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'tool_embeddings',
        columns: [
          { ...c.string('tool_key', 128), isPrimary: true },
          { ...c.string('model_key', 255), isPrimary: true },
          c.int('dimensions'),
          c.text('vector'),
          c.datetime('created_at'),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('tool_embeddings');
  }
}
