import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from './columns';

export class IdempotencyKeys1764489900000 implements MigrationInterface {
  name = 'IdempotencyKeys1764489900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = columns(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'idempotency_keys',
        columns: [
          c.id(),
          c.string('user_id', 64),
          c.string('route', 128),
          c.string('key', 255),
          c.string('request_hash', 64),
          c.int('status_code', true),
          c.text('response_body', true),
          c.string('location', 512, true),
          c.datetime('created_at'),
          c.datetime('expires_at'),
        ],
        indices: [
          new TableIndex({
            name: 'uq_idempotency_keys_user_route_key',
            columnNames: ['user_id', 'route', 'key'],
            isUnique: true,
          }),
          new TableIndex({ name: 'idx_idempotency_keys_expires', columnNames: ['expires_at'] }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('idempotency_keys');
  }
}
