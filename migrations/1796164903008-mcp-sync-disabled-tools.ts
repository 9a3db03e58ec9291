import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/**
 * `vanished_tools` now lists every tool the server no longer offers, also one disabled by hand; the tools a sync
 * itself disabled (the only ones it enables again) move to their own column, which is what `vanished_tools` held.
 */
export class McpSyncDisabledTools1796164903008 implements MigrationInterface {
  name = 'McpSyncDisabledTools1796164903008';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.addColumn('mcp_servers', new TableColumn(c.json('sync_disabled_tools', true)));
    await queryRunner.query('UPDATE mcp_servers SET sync_disabled_tools = vanished_tools');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('mcp_servers', 'sync_disabled_tools');
  }
}
