import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One change to a managed object, append-only: nothing updates or deletes these rows. */
@Entity('audit_records')
@Index('idx_audit_records_created', ['createdAt'])
@Index('idx_audit_records_object', ['objectType', 'objectId'])
@Index('idx_audit_records_actor', ['actorUserId', 'createdAt'])
export class AuditRecordEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt!: Date;

  @Column({ name: 'actor_key_id', type: 'varchar', length: 64 })
  actorKeyId!: string;

  @Column({ name: 'actor_key_name', type: 'varchar', length: 128, nullable: true })
  actorKeyName!: string | null;

  @Column({ name: 'actor_user_id', type: 'varchar', length: 64 })
  actorUserId!: string;

  @Column({ type: 'varchar', length: 32 })
  action!: string;

  @Column({ name: 'object_type', type: 'varchar', length: 32 })
  objectType!: string;

  @Column({ name: 'object_id', type: 'varchar', length: 64 })
  objectId!: string;

  @Column({ name: 'object_name', type: 'varchar', length: 256, nullable: true })
  objectName!: string | null;

  @Column({ name: 'before_version', type: 'int', nullable: true })
  beforeVersion!: number | null;

  @Column({ name: 'after_version', type: 'int', nullable: true })
  afterVersion!: number | null;

  @Column({ name: 'request_id', type: 'varchar', length: 128, nullable: true })
  requestId!: string | null;
}
