import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Cost } from '../llm/model-prices';
import type { Role } from '../shared/role';
import type { RunBudgets, RunStopReason } from './run-budgets';
import type { RunDefinition } from './run-definition';
import type { ToolPins } from '../tools/stored-tool';

export type RunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'waiting';
export const FINISHED_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled'];
/** A run not ended, which holds a place in its user's concurrent_runs quota. */
export const IN_PROGRESS_STATUSES: readonly RunStatus[] = ['queued', 'running', 'waiting'];
export const isFinished = (status: string): boolean => (FINISHED_STATUSES as readonly string[]).includes(status);

export interface UsageTotals {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  model_calls: number;
  /** What the model calls cost; null: one had no known price; absent: none was priced (older rows, no calls). */
  cost?: Cost | null;
}

@Entity('runs')
@Index('idx_runs_user_created', ['userId', 'createdAt'])
@Index('idx_runs_status', ['status'])
@Index('idx_runs_workflow', ['workflowId'])
@Index('idx_runs_status_lease', ['status', 'leaseExpiresAt'])
export class RunEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'workflow_id', type: 'varchar', length: 36, nullable: true })
  workflowId!: string | null;

  @Column({ name: 'workflow_version', type: 'int', nullable: true })
  workflowVersion!: number | null;

  @Column({ name: 'parent_run_id', type: 'varchar', length: 36, nullable: true })
  parentRunId!: string | null;

  @Column({ type: 'int' })
  depth!: number;

  @Column({ type: 'json' })
  definition!: RunDefinition;

  @Column({ type: 'varchar', length: 16 })
  status!: RunStatus;

  @Column({ type: 'json' })
  inputs!: Record<string, unknown>;

  @Column({ type: 'json', nullable: true })
  outputs!: Record<string, unknown> | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ type: 'json' })
  usage!: UsageTotals;

  /** The run's own limits (request over definition); null when it has none. */
  @Column({ type: 'json', nullable: true })
  budgets!: RunBudgets | null;

  /** Why the run ended; null until it has (and on runs older than the column). */
  @Column({ name: 'stop_reason', type: 'varchar', length: 32, nullable: true })
  stopReason!: RunStopReason | null;

  @Column({ name: 'user_id', type: 'varchar', length: 64 })
  userId!: string;

  @Column({ name: 'user_role', type: 'varchar', length: 16, default: 'user' })
  userRole!: Role;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt!: Date;

  @Column({ name: 'started_at', type: 'datetime', precision: 3, nullable: true })
  startedAt!: Date | null;

  @Column({ name: 'finished_at', type: 'datetime', precision: 3, nullable: true })
  finishedAt!: Date | null;

  /** The version of each tool the run may use, pinned when it was created; null on runs older than pinning. */
  @Column({ name: 'tool_pins', type: 'json', nullable: true })
  toolPins!: ToolPins | null;

  /** The worker executing the run (queue mode); null when none holds it. */
  @Column({ name: 'lease_owner', type: 'varchar', length: 64, nullable: true })
  leaseOwner!: string | null;

  /** Until when the lease holds without a heartbeat; past it, any worker may take the run over. */
  @Column({ name: 'lease_expires_at', type: 'datetime', precision: 3, nullable: true })
  leaseExpiresAt!: Date | null;
}
