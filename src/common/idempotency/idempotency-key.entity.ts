import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A remembered response of a request sent with an Idempotency-Key; `statusCode` is null while it runs. */
@Entity('idempotency_keys')
@Index('uq_idempotency_keys_user_route_key', ['userId', 'route', 'key'], { unique: true })
@Index('idx_idempotency_keys_expires', ['expiresAt'])
export class IdempotencyKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 }) id!: string;
  @Column({ name: 'user_id', type: 'varchar', length: 64 }) userId!: string;
  @Column({ type: 'varchar', length: 128 }) route!: string;
  @Column({ type: 'varchar', length: 255 }) key!: string;
  @Column({ name: 'request_hash', type: 'varchar', length: 64 }) requestHash!: string;
  @Column({ name: 'status_code', type: 'int', nullable: true }) statusCode!: number | null;
  @Column({ name: 'response_body', type: 'text', nullable: true }) responseBody!: string | null;
  @Column({ type: 'varchar', length: 512, nullable: true }) location!: string | null;
  @Column({ name: 'created_at', type: 'datetime' }) createdAt!: Date;
  @Column({ name: 'expires_at', type: 'datetime' }) expiresAt!: Date;
}
