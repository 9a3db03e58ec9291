import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

import type { Role } from '../shared/role';

@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ type: 'varchar', length: 128 })
  name!: string;

  /** SHA-256 of the key: keys are 256-bit random, so a fast hash is enough and lookups stay O(1). */
  @Index('uq_api_keys_key_hash', { unique: true })
  @Column({ name: 'key_hash', type: 'varchar', length: 64 })
  keyHash!: string;

  @Column({ name: 'key_prefix', type: 'varchar', length: 16 })
  keyPrefix!: string;

  @Column({ type: 'varchar', length: 16 })
  role!: Role;

  @Index('idx_api_keys_user_id')
  @Column({ name: 'user_id', type: 'varchar', length: 64 })
  userId!: string;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt!: Date;

  @Column({ name: 'revoked_at', type: 'datetime', precision: 3, nullable: true })
  revokedAt!: Date | null;
}
