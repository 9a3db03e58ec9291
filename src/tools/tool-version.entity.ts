import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { FunctionTool, ImplementationType, ToolEffect } from '../shared/tool-types';

/** One immutable version of a tool: its schema and implementation as they were. */
@Entity('tool_versions')
@Index('uq_tool_versions_tool_version', ['toolId', 'version'], { unique: true })
export class ToolVersionEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'tool_id', type: 'varchar', length: 36 })
  toolId!: string;

  @Column({ type: 'int' })
  version!: number;

  @Column({ type: 'varchar', length: 64 })
  name!: string;

  @Column({ type: 'text' })
  description!: string;

  @Column({ type: 'varchar', length: 64 })
  category!: string;

  @Column({ name: 'function_schema', type: 'json' })
  functionSchema!: FunctionTool;

  @Column({ name: 'implementation_type', type: 'varchar', length: 16 })
  implementationType!: ImplementationType;

  @Column({ name: 'implementation_config', type: 'json' })
  implementationConfig!: Record<string, unknown>;

  @Column({ type: 'varchar', length: 16 })
  effect!: ToolEffect;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt!: Date;
}
