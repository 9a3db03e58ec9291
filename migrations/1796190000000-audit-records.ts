import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

/** The audit trail: one append-only row per change to a tool, workflow, suite, MCP server, key, quota or approval. */
export class AuditRecords1796190000000 implements MigrationInterface {
  name = 'AuditRecords1796190000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'audit_records',
        columns: [
          c.id(),
          c.datetime('created_at'),
          c.string('actor_key_id', 64),
          c.string('actor_key_name', 128, true),
          c.string('actor_user_id', 64),
          c.string('action', 32),
          c.string('object_type', 32),
          c.string('object_id', 64),
          c.string('object_name', 256, true),
          c.int('before_version', true),
          c.int('after_version', true),
          c.string('request_id', 128, true),
        ],
        indices: [
          new TableIndex({ name: 'idx_audit_records_created', columnNames: ['created_at'] }),
          new TableIndex({ name: 'idx_audit_records_object', columnNames: ['object_type', 'object_id'] }),
          new TableIndex({ name: 'idx_audit_records_actor', columnNames: ['actor_user_id', 'created_at'] }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('audit_records');
  }
}
