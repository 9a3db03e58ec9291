import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { ToolDefinitionColumns } from './tool-definition-columns';

/** One immutable version of a tool: its schema and implementation as they were. */
@Entity('tool_versions')
@Index('uq_tool_versions_tool_version', ['toolId', 'version'], { unique: true })
export class ToolVersionEntity extends ToolDefinitionColumns {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'tool_id', type: 'varchar', length: 36 })
  toolId!: string;

  @Column({ type: 'int' })
  version!: number;

  /** Written by the seeder from the code a builtin ships with, not by a person. */
  @Column({ type: 'boolean', default: false })
  seeded!: boolean;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt!: Date;
}
