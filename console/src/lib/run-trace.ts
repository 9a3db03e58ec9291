/** Folds the run's event stream (GET /runs/:id/events) into nodes → model calls → tool calls, for the run page. */

import type { Cost } from './cost';
import { putNestedRun, toNestedRun, type NestedRunView } from './nested-runs';

export interface TraceEvent {
  type: string;
  data: Record<string, unknown>;
}

export interface ToolCallView {
  callId: string;
  name: string;
  args: string;
  status: string;
  durationMs: number | null;
  response: string | null;
  startedAt: number;
  endedAt: number | null;
  repaired: boolean;
  /** How it was repaired (json_answer, tool_call_tag, arguments, …), when it was. */
  repairKind: string | null;
  /** Since when it waits for a person's approval (while it waits). */
  waitingSince: number | null;
  /** The model's arguments, when a person approved the call with others (`args` is then what ran). */
  modelArgs: string | null;
  /** Who edited the arguments (the API key's name) and when. */
  editedBy: string | null;
  editedAt: number | null;
}

/** A tool call the model just made: running until its result (or an approval request) says otherwise. */
const newToolCall = (callId: string, name: string, at: number): ToolCallView => ({
  callId,
  name,
  args: '',
  status: 'running',
  durationMs: null,
  response: null,
  startedAt: at,
  endedAt: null,
  repaired: false,
  repairKind: null,
  waitingSince: null,
  modelArgs: null,
  editedBy: null,
  editedAt: null,
});

export interface ModelCallView {
  number: number;
  startedAt: number;
  lastAt: number;
  /** When its llm.usage arrived: the model's answer was complete. */
  endedAt: number | null;
  reasoning: string;
  reasoningStartedAt: number | null;
  reasoningEndedAt: number | null;
  text: string;
  toolCalls: ToolCallView[];
  retries: string[];
  /** What the node did to the request before this call: context trimmed, embeddings given up. */
  notes: string[];
  usage: Usage | null;
  /** From its llm.usage: what the call cost; null when its model has no known price; undefined: not said. */
  cost?: Cost | null;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  model_calls?: number;
}

export interface NodeView {
  id: string;
  type: string;
  label: string | null;
  status: string;
  startedAt: number;
  endedAt: number | null;
  durationMs: number | null;
  output: unknown;
  error: string | null;
  modelCalls: ModelCallView[];
  /** A map node's items or a loop node's iterations that ended (node.item events), in index order. */
  items: NestedRunView[];
}

export interface ApprovalView {
  id: string;
  nodeId: string | null;
  toolName: string;
  arguments: unknown;
  status: string;
}

export interface TraceState {
  status: string;
  startedAt: number | null;
  endedAt: number | null;
  nodes: NodeView[];
  outputs: Record<string, unknown> | null;
  error: string | null;
  usage: Usage | null;
  approvals: ApprovalView[];
}

export const emptyTrace = (): TraceState => ({
  status: 'queued',
  startedAt: null,
  endedAt: null,
  nodes: [],
  outputs: null,
  error: null,
  usage: null,
  approvals: [],
});

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const plural = (count: number, one: string, many: string): string =>
  count === 0 ? '' : `${count} ${count === 1 ? one : many}`;
const number = (value: unknown): number | null => (typeof value === 'number' ? value : null);
const timeOf = (data: Record<string, unknown>): number => {
  const at = typeof data.at === 'string' ? Date.parse(data.at) : NaN;
  return Number.isNaN(at) ? Date.now() : at;
};

function nodeFor(state: TraceState, data: Record<string, unknown>, at: number): NodeView {
  const id = text(data.node_id);
  let node = [...state.nodes].reverse().find((candidate) => candidate.id === id);
  if (!node) {
    node = {
      id,
      type: text(data.node_type) || 'llm',
      label: null,
      status: 'running',
      startedAt: at,
      endedAt: null,
      durationMs: null,
      output: null,
      error: null,
      modelCalls: [],
      items: [],
    };
    state.nodes.push(node);
  }
  return node;
}

/** A call is over once its usage arrived (llm.usage) or, without that event, once all its tool calls returned. */
const settled = (call: ModelCallView) =>
  call.endedAt !== null || (call.toolCalls.length > 0 && call.toolCalls.every((toolCall) => toolCall.endedAt !== null));

/** The model call an event belongs to: a new one starts once the previous one's tool calls have all returned. */
function modelCallFor(node: NodeView, at: number, startsAnswer: boolean): ModelCallView {
  const last = node.modelCalls.at(-1);
  if (last && !settled(last) && !(startsAnswer && last.toolCalls.length > 0)) {
    last.lastAt = at;
    return last;
  }
  const previousEnd = last
    ? Math.max(last.endedAt ?? last.lastAt, ...last.toolCalls.map((call) => call.endedAt ?? at))
    : node.startedAt;
  const call: ModelCallView = {
    number: node.modelCalls.length + 1,
    startedAt: Math.min(previousEnd, at),
    lastAt: at,
    endedAt: null,
    reasoning: '',
    reasoningStartedAt: null,
    reasoningEndedAt: null,
    text: '',
    toolCalls: [],
    retries: [],
    notes: [],
    usage: null,
  };
  node.modelCalls.push(call);
  return call;
}

function findToolCall(node: NodeView, callId: string): ToolCallView | undefined {
  for (let index = node.modelCalls.length - 1; index >= 0; index--) {
    const found = node.modelCalls[index].toolCalls.find((call) => call.callId === callId);
    if (found) return found;
  }
  return undefined;
}

/** The `repair` of an event (docs/providers.md, Repaired calls), when it has one. */
const repairOf = (data: Record<string, unknown>): { kind?: unknown; text?: unknown } | null =>
  typeof data.repair === 'object' && data.repair !== null ? (data.repair as { kind?: unknown; text?: unknown }) : null;

function markRepair(toolCall: ToolCallView, data: Record<string, unknown>): void {
  const kind = repairOf(data)?.kind;
  if (typeof kind === 'string') toolCall.repairKind = kind;
  else if (data.repaired === true) toolCall.repairKind ??= 'arguments';
  toolCall.repaired = toolCall.repairKind !== null;
}

/** Applies one event; returns the same (mutated) state so it works on a Vue reactive object. */
export function applyEvent(state: TraceState, event: TraceEvent): TraceState {
  const { data } = event;
  const at = timeOf(data);
  switch (event.type) {
    case 'run.started':
      state.status = 'running';
      state.startedAt = at;
      break;
    case 'node.started':
      state.nodes.push({
        id: text(data.node_id),
        type: text(data.node_type),
        label: typeof data.label === 'string' ? data.label : null,
        status: 'running',
        startedAt: at,
        endedAt: null,
        durationMs: null,
        output: null,
        error: null,
        modelCalls: [],
        items: [],
      });
      break;
    case 'llm.delta':
    case 'llm.reasoning': {
      const call = modelCallFor(nodeFor(state, data, at), at, true);
      if (event.type === 'llm.delta') call.text += text(data.delta);
      else {
        call.reasoning += text(data.delta);
        call.reasoningStartedAt ??= at;
        call.reasoningEndedAt = at;
      }
      break;
    }
    case 'llm.retry': {
      const call = modelCallFor(nodeFor(state, data, at), at, false);
      call.retries.push(`attempt ${number(data.attempt) ?? '?'}: ${text(data.reason)}`);
      break;
    }
    case 'llm.context_trimmed': {
      const call = modelCallFor(nodeFor(state, data, at), at, true);
      const changes = [
        plural(number(data.shortened_results) ?? 0, 'older tool result shortened', 'older tool results shortened'),
        plural(number(data.dropped_messages) ?? 0, 'message left out', 'messages left out'),
      ].filter((change) => change !== '');
      call.notes.push(
        `context trimmed to fit ${number(data.context_window) ?? '?'} tokens: ` +
          `${number(data.tokens_before) ?? '?'} → ${number(data.tokens_after) ?? '?'} tokens` +
          (changes.length > 0 ? ` (${changes.join(', ')})` : ''),
      );
      break;
    }
    case 'llm.embeddings_failed': {
      const call = modelCallFor(nodeFor(state, data, at), at, true);
      call.notes.push(`tool selection without embeddings from here on (${text(data.stage)}: ${text(data.message)})`);
      break;
    }
    case 'llm.output_retry': {
      const node = nodeFor(state, data, at);
      const call = node.modelCalls.at(-1) ?? modelCallFor(node, at, false);
      const errors = Array.isArray(data.errors) ? data.errors.map(text) : [];
      call.notes.push(`answer sent back (retry ${number(data.attempt) ?? '?'}): ${errors.join('; ')}`);
      break;
    }
    case 'llm.usage': {
      const node = nodeFor(state, data, at);
      const call = node.modelCalls.at(-1) ?? modelCallFor(node, at, false);
      if (data.usage && typeof data.usage === 'object') call.usage = data.usage as Usage;
      if ('cost' in data) call.cost = (data.cost as Cost | null) ?? null;
      // The streamed text was the calls the model wrote into it: what is left of it is the text.
      const repairedText = repairOf(data)?.text;
      if (typeof repairedText === 'string') call.text = repairedText;
      call.endedAt = at;
      call.lastAt = at;
      break;
    }
    case 'tool.call': {
      const node = nodeFor(state, data, at);
      const call = modelCallFor(node, at, false);
      const toolCall = newToolCall(text(data.call_id), text(data.name), at);
      markRepair(toolCall, data);
      call.toolCalls.push(toolCall);
      break;
    }
    case 'tool.args.delta': {
      const toolCall = findToolCall(nodeFor(state, data, at), text(data.call_id));
      if (toolCall) toolCall.args += text(data.delta);
      const call = nodeFor(state, data, at).modelCalls.at(-1);
      if (call) call.lastAt = at;
      break;
    }
    case 'tool.result': {
      const node = nodeFor(state, data, at);
      let toolCall = findToolCall(node, text(data.call_id));
      if (!toolCall) {
        modelCallFor(node, at, false).toolCalls.push((toolCall = newToolCall(text(data.call_id), text(data.name), at)));
      }
      toolCall.status = text(data.status) || 'success';
      toolCall.durationMs = number(data.duration_ms);
      toolCall.response = text(data.response);
      toolCall.endedAt = at;
      toolCall.waitingSince = null;
      // The call event comes while the model still streams; the tool itself ran for duration_ms before its result.
      if (toolCall.durationMs !== null) toolCall.startedAt = at - toolCall.durationMs;
      markRepair(toolCall, data);
      break;
    }
    case 'node.finished': {
      const node = nodeFor(state, data, at);
      node.status = text(data.status);
      node.durationMs = number(data.duration_ms);
      node.endedAt = at;
      node.output = data.output ?? null;
      node.error = typeof data.error === 'string' ? data.error : null;
      break;
    }
    case 'node.item': {
      const item = toNestedRun(data);
      if (item) putNestedRun(nodeFor(state, data, at).items, item);
      break;
    }
    case 'run.finished':
      state.status = text(data.status);
      state.endedAt = at;
      state.outputs = (data.outputs as Record<string, unknown> | null) ?? null;
      state.error = typeof data.error === 'string' ? data.error : null;
      state.usage = (data.usage as Usage | null) ?? null;
      break;
    case 'approval.requested': {
      state.status = 'waiting';
      const node = nodeFor(state, data, at);
      const toolCall = findToolCall(node, text(data.call_id));
      if (toolCall && toolCall.endedAt === null) {
        toolCall.status = 'waiting';
        toolCall.waitingSince = at;
        // Waiting is not executing: the call starts when the person lets it.
        toolCall.startedAt = at;
      }
      if (node.status === 'running') node.status = 'waiting';
      state.approvals.push({
        id: text(data.approval_id),
        nodeId: typeof data.node_id === 'string' ? data.node_id : null,
        toolName: text(data.tool),
        arguments: data.arguments ?? null,
        status: 'pending',
      });
      break;
    }
    case 'approval.resolved': {
      const id = text(data.approval_id);
      const approval = state.approvals.find((candidate) => candidate.id === id);
      if (approval) approval.status = text(data.decision) === 'reject' ? 'rejected' : 'approved';
      // A rejected call never runs: it may get no tool.result of its own.
      const node = nodeFor(state, data, at);
      const toolCall = findToolCall(node, text(data.call_id));
      if (toolCall?.status === 'waiting' && approval?.status === 'rejected') {
        toolCall.status = 'rejected';
        toolCall.endedAt = at;
      } else if (toolCall?.status === 'waiting') {
        toolCall.status = 'running';
        toolCall.startedAt = at;
      }
      if (toolCall) {
        toolCall.waitingSince = null;
        if (text(data.decision) === 'approve') applyEditedArguments(toolCall, data, at);
      }
      if (node.status === 'waiting' && !node.modelCalls.some((call) => call.toolCalls.some(isWaiting))) {
        node.status = 'running';
      }
      if (state.status === 'waiting') state.status = 'running';
      break;
    }
    default:
      break;
  }
  return state;
}

const isWaiting = (call: ToolCallView) => call.status === 'waiting';

/** An approval with arguments other than the model's: the call shows what ran, and keeps the model's one click away. */
function applyEditedArguments(toolCall: ToolCallView, data: Record<string, unknown>, at: number): void {
  if (data.arguments === undefined || data.arguments === null) return;
  const edited = JSON.stringify(data.arguments);
  let model: unknown = toolCall.args;
  try {
    model = JSON.parse(toolCall.args);
  } catch {
    // Arguments the model wrote as broken JSON: shown as written.
  }
  if (JSON.stringify(model) === edited) return;
  toolCall.modelArgs = toolCall.args;
  toolCall.args = edited;
  toolCall.editedBy = text(data.decided_key_name) || text(data.decided_by) || null;
  toolCall.editedAt = at;
}

/** Rows of the waterfall: model calls and tool calls with their start and end, in ms from the run's start. */
export interface TimelineRow {
  key: string;
  kind: 'model' | 'tool';
  label: string;
  start: number;
  end: number;
  status: string;
}

export function timelineRows(state: TraceState, now = Date.now()): TimelineRow[] {
  const origin = state.startedAt ?? state.nodes[0]?.startedAt ?? now;
  const rows: TimelineRow[] = [];
  for (const node of state.nodes) {
    for (const call of node.modelCalls) {
      const firstTool = call.toolCalls.length > 0 ? Math.min(...call.toolCalls.map((tool) => tool.startedAt)) : null;
      const end = call.endedAt ?? Math.max(call.lastAt, firstTool ?? call.lastAt);
      rows.push({
        key: `${node.id}-m${call.number}`,
        kind: 'model',
        label: `${node.id} · model call ${call.number}`,
        start: call.startedAt - origin,
        end: end - origin,
        status: 'success',
      });
      for (const tool of call.toolCalls) {
        rows.push({
          key: `${node.id}-${tool.callId}`,
          kind: 'tool',
          label: tool.name,
          start: tool.startedAt - origin,
          // A call waiting for a person has not started executing: its bar does not grow meanwhile.
          end: (tool.endedAt ?? (isWaiting(tool) ? tool.startedAt : now)) - origin,
          status: tool.status,
        });
      }
    }
  }
  return rows;
}

/** Pretty-prints JSON text (a tool call's arguments); leaves anything else as it is. */
export function prettyJson(value: unknown): string {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2) ?? '';
}
