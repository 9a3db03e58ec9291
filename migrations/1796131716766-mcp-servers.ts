import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

export class McpServers1796131716766 implements MigrationInterface {
  name = 'McpServers1796131716766';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'mcp_servers',
        columns: [
          c.id(),
          c.string('name', 64),
          c.string('transport', 16),
          c.text('command', true),
          c.json('args', true),
          c.json('env', true),
          c.text('url', true),
          c.json('headers', true),
          c.string('user_id', 64, true),
          c.datetime('created_at'),
          c.datetime('updated_at'),
          c.datetime('synced_at', true),
        ],
        indices: [
          new TableIndex({ name: 'uq_mcp_servers_user_name', columnNames: ['user_id', 'name'], isUnique: true }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('mcp_servers');
  }
}
