import type { Role } from '../shared/role';
import type { RunBudgets, RunStopReason } from './run-budgets';
import type { RunDefinition } from './run-definition';
import type { ToolPins } from '../tools/stored-tool';
import type { RunEntity, RunStatus, UsageTotals } from './run.entity';

/** A run as other modules see it: a plain read-only copy, never the TypeORM entity. */
export interface RunRecord {
  readonly id: string;
  readonly workflowId: string | null;
  readonly workflowVersion: number | null;
  readonly parentRunId: string | null;
  readonly depth: number;
  readonly definition: RunDefinition;
  readonly status: RunStatus;
  readonly inputs: Record<string, unknown>;
  readonly outputs: Record<string, unknown> | null;
  readonly error: string | null;
  readonly usage: UsageTotals;
  readonly budgets: RunBudgets | null;
  readonly stopReason: RunStopReason | null;
  readonly userId: string;
  readonly userRole: Role;
  readonly createdAt: Date;
  readonly startedAt: Date | null;
  readonly finishedAt: Date | null;
  /** The tool versions the run uses, by name (see RunEntity.toolPins). */
  readonly toolPins: ToolPins | null;
}

export const toRunRecord = (entity: RunEntity): RunRecord => ({
  id: entity.id,
  workflowId: entity.workflowId,
  workflowVersion: entity.workflowVersion,
  parentRunId: entity.parentRunId,
  depth: entity.depth,
  definition: entity.definition,
  status: entity.status,
  inputs: entity.inputs,
  outputs: entity.outputs,
  error: entity.error,
  usage: entity.usage,
  budgets: entity.budgets ?? null,
  stopReason: entity.stopReason ?? null,
  userId: entity.userId,
  userRole: entity.userRole,
  createdAt: entity.createdAt,
  startedAt: entity.startedAt,
  finishedAt: entity.finishedAt,
  toolPins: entity.toolPins,
});
