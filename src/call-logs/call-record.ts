import type { ToolCall, ToolCallRepairKind } from '../shared/tool-types';
import { redactJsonText } from '../shared/json-text-redactor';
import { secretArgumentNames } from '../shared/argument-secrets';
import type { ToolCallStatus } from '../shared/tool-call-status';
import type { ToolCallLogEntity } from './tool-call-log.entity';

/**
 * One tool call as it is logged, the one record of a call: who called which tool (and version) with what, in which
 * run and node, and how it was answered. The registry, the LLM node, runs and metrics all hand this shape on.
 */
export interface ToolCallRecord {
  toolId: string | null;
  toolName: string;
  toolVersion: number | null;
  runId: string | null;
  nodeId: string | null;
  callId: string | null;
  userId: string;
  input: string;
  output: string | null;
  status: ToolCallStatus;
  errorMessage: string | null;
  durationMs: number;
  /** CPU time the call used (code tools: metadata `cpu_ms`); absent or null: not measured. */
  cpuMs?: number | null;
  startedAt: Date;
  /** How the call was repaired (see ToolCallRepairKind); absent or null: it was not. */
  repair?: ToolCallRepairKind | null;
}

/** Which call of a run a log row is: its node and call id (how a resumed run's answered calls are matched to rows). */
export type CallKey = Pick<ToolCallRecord, 'nodeId' | 'callId'>;

/** A logged call as read back: its record, its row id and when the row was written. */
export type LoggedToolCall = Readonly<ToolCallRecord & { id: string; createdAt: Date }>;

/** Told of every tool call as its log row is written (the port metrics use); must not throw. */
export type ToolCallListener = (record: ToolCallRecord) => void;

/** Where a call was made: its tool's stored id and version (when known), its run, node and caller. */
export interface CallSite {
  /** With its schema when known: the arguments it declares secret are masked in the row. */
  tool: { id?: string; version?: number; schema?: { function: { parameters?: unknown } } } | undefined;
  runId: string | null;
  nodeId: string | null;
  userId: string;
}

/** The log row of a call: who called which tool with what, and how it was `answered`. */
export const toCallRecord = (
  call: Pick<ToolCall, 'id' | 'name' | 'arguments' | 'repair'>,
  { tool, runId, nodeId, userId }: CallSite,
  answered: Pick<ToolCallRecord, 'output' | 'status' | 'errorMessage' | 'durationMs' | 'cpuMs' | 'startedAt'>,
): ToolCallRecord => ({
  toolId: tool?.id ?? null,
  toolName: call.name.slice(0, 64),
  toolVersion: tool?.version ?? null,
  runId,
  nodeId,
  callId: call.id.slice(0, 128),
  userId,
  input: tool?.schema
    ? redactJsonText(call.arguments, secretArgumentNames(tool.schema.function.parameters))
    : call.arguments,
  repair: call.repair?.kind ?? null,
  ...answered,
});

/** The plain copy of a log row other modules get, never the TypeORM entity. */
export const toLoggedToolCall = (entity: ToolCallLogEntity): LoggedToolCall => ({
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
  cpuMs: entity.cpuMs,
  startedAt: entity.startedAt,
  repair: entity.repair,
  createdAt: entity.createdAt,
});
