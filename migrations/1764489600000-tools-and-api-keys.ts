import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

export class ToolsAndApiKeys1764489600000 implements MigrationInterface {
  name = 'ToolsAndApiKeys1764489600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'tools',
        columns: [
          c.id(),
          c.string('name', 64),
          c.text('description'),
          c.string('category', 64),
          c.json('function_schema'),
          c.string('implementation_type', 16),
          c.json('implementation_config'),
          c.boolean('is_public'),
          c.boolean('enabled'),
          c.string('effect', 16),
          c.string('user_id', 64, true),
          c.int('use_count'),
          c.int('version'),
          c.datetime('created_at'),
          c.datetime('updated_at'),
        ],
        indices: [
          new TableIndex({ name: 'uq_tools_name', columnNames: ['name'], isUnique: true }),
          new TableIndex({ name: 'idx_tools_category', columnNames: ['category'] }),
          new TableIndex({ name: 'idx_tools_implementation_type', columnNames: ['implementation_type'] }),
          new TableIndex({ name: 'idx_tools_user_id', columnNames: ['user_id'] }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'api_keys',
        columns: [
          c.id(),
          c.string('name', 128),
          c.string('key_hash', 64),
          c.string('key_prefix', 16),
          c.string('role', 16),
          c.string('user_id', 64),
          c.datetime('created_at'),
          c.datetime('revoked_at', true),
        ],
        indices: [
          new TableIndex({ name: 'uq_api_keys_key_hash', columnNames: ['key_hash'], isUnique: true }),
          new TableIndex({ name: 'idx_api_keys_user_id', columnNames: ['user_id'] }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('api_keys');
    await queryRunner.dropTable('tools');
  }
}
