import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One term of one owner's learned evidence for one tool (TOOL_SELECTION_LEARNING): a stemmed word of the tasks
 * whose runs called the tool, never the task's text.
 */
@Entity('tool_usage_terms')
@Index('idx_tool_usage_terms_tool_key', ['toolKey'])
export class ToolUsageTermEntity {
  /** The API user the runs belonged to. */
  @PrimaryColumn({ name: 'owner_id', type: 'varchar', length: 64 })
  ownerId!: string;

  /** A stored tool's id (kept across renames and versions), `name:<name>` for the others. */
  @PrimaryColumn({ name: 'tool_key', type: 'varchar', length: 128 })
  toolKey!: string;

  @PrimaryColumn({ type: 'varchar', length: 32 })
  term!: string;

  /**
   * The weight scaled to the fixed epoch of tool-usage-weights.ts (`weight × 2^(age since epoch / half-life)`):
   * learning adds to it without reading it, and decay is applied when it is read.
   */
  @Column({ type: 'double' })
  weight!: number;

  @Column({ name: 'updated_at', type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
