import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { WorkflowDefinition } from './definition.schema';

/** One immutable version of a workflow: its definition as it was saved. */
@Entity('workflow_versions')
@Index('uq_workflow_versions_workflow_version', ['workflowId', 'version'], { unique: true })
export class WorkflowVersionEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'workflow_id', type: 'varchar', length: 36 })
  workflowId!: string;

  @Column({ type: 'int' })
  version!: number;

  @Column({ type: 'varchar', length: 128 })
  name!: string;

  @Column({ type: 'text' })
  description!: string;

  @Column({ type: 'json' })
  definition!: WorkflowDefinition;

  /** The user whose save made this version. */
  @Column({ name: 'created_by', type: 'varchar', length: 64 })
  createdBy!: string;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt!: Date;
}
