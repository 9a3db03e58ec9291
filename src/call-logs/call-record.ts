import type { ToolCall } from '../shared/tool-types';
import type { ToolCallRecord } from './tool-call-logs.service';

/** Where a call was made: its tool's stored id and version (when known), its run, node and caller. */
export interface CallSite {
  tool: { id?: string; version?: number } | undefined;
  runId: string | null;
  nodeId: string | null;
  userId: string;
}

/** The log row of a call: who called which tool with what, and how it was `answered`. */
export const toCallRecord = (
  call: Pick<ToolCall, 'id' | 'name' | 'arguments'>,
  { tool, runId, nodeId, userId }: CallSite,
  answered: Pick<ToolCallRecord, 'output' | 'status' | 'errorMessage' | 'durationMs' | 'startedAt'>,
): ToolCallRecord => ({
  toolId: tool?.id ?? null,
  toolName: call.name.slice(0, 64),
  toolVersion: tool?.version ?? null,
  runId,
  nodeId,
  callId: call.id.slice(0, 128),
  userId,
  input: call.arguments,
  ...answered,
});
