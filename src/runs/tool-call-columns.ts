import { Column, PrimaryColumn } from 'typeorm';

/**
 * Which tool call of a run a row is about, as columns: shared by `run_approvals` and `tool_results`, so the two
 * tables name a call alike.
 */
export abstract class ToolCallColumns {
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
}
