import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { WorkflowDefinition } from './definition.schema';

@Entity('workflows')
@Index('idx_workflows_user_id', ['userId'])
export class WorkflowEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Index('uq_workflows_name', { unique: true })
  @Column({ type: 'varchar', length: 128 })
  name!: string;

  @Column({ type: 'text' })
  description!: string;

  @Column({ type: 'json' })
  definition!: WorkflowDefinition;

  @Column({ name: 'is_public', type: 'boolean' })
  isPublic!: boolean;

  @Column({ name: 'user_id', type: 'varchar', length: 64 })
  userId!: string;

  @Column({ type: 'int' })
  version!: number;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
