import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/** The tools of an MCP server that a sync disabled because they vanished: the only ones a later sync enables again. */
export class McpVanishedTools1796146178195 implements MigrationInterface {
  name = 'McpVanishedTools1796146178195';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.addColumn('mcp_servers', new TableColumn(c.json('vanished_tools', true)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('mcp_servers', 'vanished_tools');
  }
}
