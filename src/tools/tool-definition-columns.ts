import { Column } from 'typeorm';
import type { FunctionTool, ImplementationType, ToolEffect } from '../shared/tool-types';

/**
 * What defines a tool — its schema and implementation — as columns: shared by the `tools` row and each of its
 * immutable `tool_versions`, so the two tables cannot drift apart.
 */
export abstract class ToolDefinitionColumns {
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

  /** A call of the tool inside a run waits for a person's decision before it executes. */
  @Column({ name: 'requires_approval', type: 'boolean', default: false })
  requiresApproval!: boolean;
}
