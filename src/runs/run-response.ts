import type { ToolCallRecord } from '../call-logs/call-record';
import type { ToolPins } from '../tools/stored-tool';
import type { RunStopReason } from './run-budgets';
import type { NodeRunDto, RunResponse } from './run.dto';
import { FINISHED_STATUSES, type RunStatus, type UsageTotals } from './run.entity';
import { costOfUsage } from './usage-totals';
import type { NodeRunRow } from './run-journal';
import type { RunRecord } from './run-record';

/** What a run's end is called when its execution did not say (a cancel, another process's bookkeeping). */
export const stopReasonOf = (status: RunStatus): RunStopReason | null => {
  if (status === 'succeeded') return 'completed';
  if (status === 'failed') return 'error';
  if (status === 'cancelled') return 'cancelled';
  return null;
};

const iso = (date: Date | null) => date?.toISOString() ?? null;
const duration = (start: Date | null, end: Date | null) => (start && end ? end.getTime() - start.getTime() : null);

const versionsOf = (pins: ToolPins): Record<string, number> =>
  Object.fromEntries(Object.entries(pins).map(([name, pin]) => [name, pin.version]));

/** What a run's answer shows of a logged call. */
export type CallRow = Pick<
  ToolCallRecord,
  | 'nodeId'
  | 'callId'
  | 'toolName'
  | 'status'
  | 'input'
  | 'output'
  | 'errorMessage'
  | 'durationMs'
  | 'startedAt'
  | 'repair'
>;

/**
 * Parallel calls of one node can start in the same millisecond; an LLM node's output lists its
 * calls in the order the model made them, so that order wins over the timestamps.
 */
function inCallOrder<T extends CallRow>(calls: T[], output: unknown): T[] {
  const recorded = (output as { tool_calls?: Array<{ id?: string }> } | null)?.tool_calls;
  if (!Array.isArray(recorded)) return calls;
  const position = new Map(recorded.map((call, index) => [call.id, index]));
  const rank = (call: CallRow) => position.get(call.callId ?? '') ?? Number.MAX_SAFE_INTEGER;
  return [...calls].sort((a, b) => rank(a) - rank(b));
}

/** `offered_tools` of an LLM node's output, when it has them. */
function offeredToolsOf(output: unknown): { offered_tools?: string[][] } {
  const offered = (output as { offered_tools?: unknown } | null)?.offered_tools;
  return Array.isArray(offered) ? { offered_tools: offered as string[][] } : {};
}

/** The usage without its cost, which the API shows on its own. */
function tokensOf({ cost: _cost, ...tokens }: UsageTotals): Omit<UsageTotals, 'cost'> {
  return tokens;
}

/** A run as the API shows it, without its node runs. */
export function toRunResponse(run: RunRecord): RunResponse {
  return {
    id: run.id,
    workflow_id: run.workflowId,
    workflow_version: run.workflowVersion,
    workflow_name: typeof run.definition.name === 'string' ? run.definition.name : null,
    parent_run_id: run.parentRunId,
    status: run.status,
    inputs: run.inputs,
    outputs: run.outputs,
    error: run.error,
    usage: tokensOf(run.usage),
    cost: costOfUsage(run.usage),
    stop_reason: run.stopReason ?? (FINISHED_STATUSES.includes(run.status) ? stopReasonOf(run.status) : null),
    budgets: run.budgets,
    user_id: run.userId,
    created_at: run.createdAt.toISOString(),
    started_at: iso(run.startedAt),
    finished_at: iso(run.finishedAt),
    duration_ms: duration(run.startedAt, run.finishedAt),
    tool_versions: run.toolPins && versionsOf(run.toolPins),
  };
}

/** A call a person approved with arguments other than the model's (masked, like the call log). */
export interface EditedCall {
  nodeId: string;
  callId: string;
  modelArguments: Record<string, unknown>;
  editedBy: string | null;
  editedAt: Date | null;
}

/** The logged input as JSON when it is JSON (it is what ran: the edited arguments of an approved edit). */
const argumentsOf = (input: string): unknown => {
  try {
    return JSON.parse(input) as unknown;
  } catch {
    return input;
  }
};

/**
 * The run with its node runs (sorted here, in `startedAt` order) and their logged calls; a call in `edits` ran with
 * a person's arguments and also shows the model's.
 */
export function toRunDetail(
  run: RunRecord,
  nodes: NodeRunRow[],
  calls: CallRow[],
  edits: readonly EditedCall[] = [],
): RunResponse {
  const editOf = (nodeId: string, callId: string | null) =>
    edits.find((edit) => edit.nodeId === nodeId && edit.callId === callId);
  // Timestamps have millisecond precision; nodes started within the same one keep their definition order.
  const position = new Map(run.definition.nodes.map((node, index) => [node.id, index]));
  nodes.sort(
    (a, b) =>
      a.startedAt.getTime() - b.startedAt.getTime() || (position.get(a.nodeId) ?? 0) - (position.get(b.nodeId) ?? 0),
  );
  const nodeDtos: NodeRunDto[] = nodes.map((node) => ({
    ...offeredToolsOf(node.output),
    node_id: node.nodeId,
    node_type: node.nodeType,
    status: node.status,
    output: node.output,
    error: node.error,
    started_at: node.startedAt.toISOString(),
    finished_at: iso(node.finishedAt),
    duration_ms: duration(node.startedAt, node.finishedAt),
    tool_calls: inCallOrder(
      calls.filter((call) => call.nodeId === node.nodeId),
      node.output,
    ).map((call) => {
      const edit = editOf(node.nodeId, call.callId);
      return {
        call_id: call.callId,
        tool_name: call.toolName,
        status: call.status,
        input: call.input,
        arguments: argumentsOf(call.input),
        ...(edit
          ? {
              model_arguments: edit.modelArguments,
              edited_by: edit.editedBy,
              edited_at: iso(edit.editedAt) ?? undefined,
            }
          : {}),
        output: call.output,
        error_message: call.errorMessage,
        duration_ms: call.durationMs,
        started_at: call.startedAt.toISOString(),
        ...(call.repair ? { repair: { kind: call.repair } } : {}),
      };
    }),
  }));
  return { ...toRunResponse(run), nodes: nodeDtos };
}
