import type { ToolCallStatus } from '../shared/tool-call-status';
import type { ToolCallLogEntity } from './tool-call-log.entity';

/** One logged tool call as other modules see it: a plain read-only copy, never the TypeORM entity. */
export interface ToolCallLogRecord {
  readonly id: string;
  readonly toolId: string | null;
  readonly toolName: string;
  readonly toolVersion: number | null;
  readonly runId: string | null;
  readonly nodeId: string | null;
  readonly callId: string | null;
  readonly userId: string;
  readonly input: string;
  readonly output: string | null;
  readonly status: ToolCallStatus;
  readonly errorMessage: string | null;
  readonly durationMs: number;
  readonly startedAt: Date;
  readonly createdAt: Date;
}

export const toToolCallLogRecord = (entity: ToolCallLogEntity): ToolCallLogRecord => ({
  id: entity.id,
  toolId: entity.toolId,
  toolName: entity.toolName,
  toolVersion: entity.toolVersion,
  runId: entity.runId,
  nodeId: entity.nodeId,
  callId: entity.callId,
  userId: entity.userId,
  input: entity.input,
  output: entity.output,
  status: entity.status,
  errorMessage: entity.errorMessage,
  durationMs: entity.durationMs,
  startedAt: entity.startedAt,
  createdAt: entity.createdAt,
});
