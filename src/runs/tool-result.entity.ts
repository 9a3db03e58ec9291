import { Column, Entity, Index } from 'typeorm';
import { ToolCallColumns } from './tool-call-columns';

/** The full text of a tool result that was cut for the model, read back in pages by `read_tool_result`. */
@Entity('tool_results')
@Index('idx_tool_results_run', ['runId'])
export class ToolResultEntity extends ToolCallColumns {
  @Column({ type: 'text' })
  content!: string;

  @Column({ type: 'int' })
  chars!: number;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt!: Date;
}
