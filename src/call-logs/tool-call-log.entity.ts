import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { ToolCallStatus } from '../shared/tool-call-status';
import type { ToolCallRepairKind } from '../shared/tool-types';

@Entity('tool_call_logs')
@Index('idx_tool_call_logs_tool_created', ['toolId', 'createdAt'])
@Index('idx_tool_call_logs_run', ['runId'])
export class ToolCallLogEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'tool_id', type: 'varchar', length: 64, nullable: true })
  toolId!: string | null;

  @Column({ name: 'tool_name', type: 'varchar', length: 64 })
  toolName!: string;

  @Column({ name: 'tool_version', type: 'int', nullable: true })
  toolVersion!: number | null;

  @Column({ name: 'run_id', type: 'varchar', length: 36, nullable: true })
  runId!: string | null;

  @Column({ name: 'node_id', type: 'varchar', length: 128, nullable: true })
  nodeId!: string | null;

  @Column({ name: 'call_id', type: 'varchar', length: 128, nullable: true })
  callId!: string | null;

  @Column({ name: 'user_id', type: 'varchar', length: 64 })
  userId!: string;

  @Column({ type: 'text' })
  input!: string;

  @Column({ type: 'text', nullable: true })
  output!: string | null;

  @Column({ type: 'varchar', length: 24 })
  status!: ToolCallStatus;

  @Column({ name: 'error_message', type: 'text', nullable: true })
  errorMessage!: string | null;

  @Column({ name: 'duration_ms', type: 'int' })
  durationMs!: number;

  /** CPU time the call used (code tools), in whole ms rounded up; null when not measured. */
  @Column({ name: 'cpu_ms', type: 'int', nullable: true })
  cpuMs!: number | null;

  @Column({ type: 'varchar', length: 32, nullable: true })
  repair!: ToolCallRepairKind | null;

  @Column({ name: 'started_at', type: 'datetime', precision: 3 })
  startedAt!: Date;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt!: Date;
}
