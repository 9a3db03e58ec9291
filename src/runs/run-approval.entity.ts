import { Column, Entity, Index } from 'typeorm';
import type { JsonSchema } from '../shared/tool-types';
import { ToolCallColumns } from './tool-call-columns';

export type ApprovalStatus = 'pending' | 'approved' | 'rejected';
export const APPROVAL_STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'rejected'];

/** A tool call of a run that waits for (or got) a person's decision. */
@Entity('run_approvals')
@Index('uq_run_approvals_call', ['runId', 'nodeId', 'callId'], { unique: true })
@Index('idx_run_approvals_user_status', ['userId', 'status'])
export class RunApprovalEntity extends ToolCallColumns {
  /** The model's arguments after validation, as the tool would get them (unmasked: the checkpoint holds them too). */
  @Column({ type: 'json' })
  arguments!: Record<string, unknown>;

  /** The tool's parameters schema as the run uses it (its pinned version): edited arguments are checked against it. */
  @Column({ type: 'json' })
  parameters!: JsonSchema;

  @Column({ type: 'varchar', length: 16 })
  status!: ApprovalStatus;

  /** Arguments a person gave with the approval; they replace the model's. */
  @Column({ name: 'decided_arguments', type: 'json', nullable: true })
  decidedArguments!: Record<string, unknown> | null;

  @Column({ type: 'text', nullable: true })
  comment!: string | null;

  /** The run's owner: whose list the approval is on. */
  @Column({ name: 'user_id', type: 'varchar', length: 64 })
  userId!: string;

  @Column({ name: 'decided_by', type: 'varchar', length: 64, nullable: true })
  decidedBy!: string | null;

  @Column({ name: 'requested_at', type: 'datetime', precision: 3 })
  requestedAt!: Date;

  /** The name of the API key that decided, as it was then. */
  @Column({ name: 'decided_key_name', type: 'varchar', length: 128, nullable: true })
  decidedKeyName!: string | null;

  @Column({ name: 'decided_at', type: 'datetime', precision: 3, nullable: true })
  decidedAt!: Date | null;
}
