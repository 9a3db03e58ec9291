import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { WorkflowDefinition } from './definition.schema';

@Entity('workflows')
@Index('idx_workflows_user_id', ['userId'])
@Index('uq_workflows_owner_name', ['userId', 'name'], { unique: true })
@Index('uq_workflows_public_name', ['publicName'], { unique: true })
export class WorkflowEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ type: 'varchar', length: 128 })
  name!: string;

  @Column({ type: 'text' })
  description!: string;

  @Column({ type: 'json' })
  definition!: WorkflowDefinition;

  @Column({ name: 'is_public', type: 'boolean' })
  isPublic!: boolean;

  /** The name while the row is public, else null: keeps public names unique among public rows. */
  @Column({ name: 'public_name', type: 'varchar', length: 128, nullable: true })
  publicName!: string | null;

  /** A disabled workflow refuses new runs (it is also what `?force=true` deletes of what it uses leave behind). */
  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @Column({ name: 'user_id', type: 'varchar', length: 64 })
  userId!: string;

  @Column({ type: 'int' })
  version!: number;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
