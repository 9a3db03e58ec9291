import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** The full text of a tool result that was cut for the model, read back in pages by `read_tool_result`. */
@Entity('tool_results')
@Index('idx_tool_results_run', ['runId'])
export class ToolResultEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'run_id', type: 'varchar', length: 36 })
  runId!: string;

  @Column({ name: 'node_id', type: 'varchar', length: 128 })
  nodeId!: string;

  @Column({ name: 'call_id', type: 'varchar', length: 128 })
  callId!: string;

  @Column({ name: 'tool_name', type: 'varchar', length: 64 })
  toolName!: string;

  @Column({ type: 'text' })
  content!: string;

  @Column({ type: 'int' })
  chars!: number;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt!: Date;
}
