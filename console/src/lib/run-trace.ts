/** Folds the run's event stream (GET /runs/:id/events) into nodes → model calls → tool calls, for the run page. */

import type { Cost } from './cost';
import { putNestedRun, toNestedRun } from './nested-runs';
import type { RunEventDataByName, TraceEvent } from './run-events';
import {
  isWaiting,
  newNode,
  newToolCall,
  type ModelCallView,
  type NodeView,
  type ToolCallView,
  type TraceState,
  type Usage,
} from './trace-state';

type Data<Name extends keyof RunEventDataByName> = RunEventDataByName[Name];
/** What every event of a node carries. */
type NodeEvent = { node_id?: string; node_type?: string; at: string };
type Repair = { kind?: string; text?: string };

const plural = (count: number, one: string, many: string): string =>
  count === 0 ? '' : `${count} ${count === 1 ? one : many}`;
const timeOf = (data: { at: string }): number => {
  const at = Date.parse(data.at);
  return Number.isNaN(at) ? Date.now() : at;
};

/** Usage as the run page shows it: a figure the event left out counts 0. */
const usageOf = (usage: Partial<Usage>): Usage => ({
  prompt_tokens: usage.prompt_tokens ?? 0,
  completion_tokens: usage.completion_tokens ?? 0,
  total_tokens: usage.total_tokens ?? 0,
  ...(usage.model_calls === undefined ? {} : { model_calls: usage.model_calls }),
});
/** A cost with no amount or currency is not known. */
const costOf = (cost: Partial<Cost> | null): Cost | null =>
  cost?.amount === undefined || cost.currency === undefined ? null : { amount: cost.amount, currency: cost.currency };

function nodeFor(state: TraceState, data: NodeEvent, at: number): NodeView {
  const id = data.node_id ?? '';
  let node = [...state.nodes].reverse().find((candidate) => candidate.id === id);
  if (!node) {
    node = newNode(id, data.node_type || 'llm', null, at);
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

function findToolCall(node: NodeView, callId: string | undefined): ToolCallView | undefined {
  for (let index = node.modelCalls.length - 1; index >= 0; index--) {
    const found = node.modelCalls[index].toolCalls.find((call) => call.callId === (callId ?? ''));
    if (found) return found;
  }
  return undefined;
}

/** How a call was repaired (docs/providers.md, Repaired calls): its `repair.kind`, or `arguments` for `repaired`. */
function markRepair(toolCall: ToolCallView, data: { repair?: Repair; repaired?: boolean }): void {
  const kind = data.repair?.kind;
  if (typeof kind === 'string') toolCall.repairKind = kind;
  else if (data.repaired === true) toolCall.repairKind ??= 'arguments';
  toolCall.repaired = toolCall.repairKind !== null;
}

function contextTrimmedNote(data: Data<'llm.context_trimmed'>): string {
  const changes = [
    plural(data.shortened_results ?? 0, 'older tool result shortened', 'older tool results shortened'),
    plural(data.dropped_messages ?? 0, 'message left out', 'messages left out'),
  ].filter((change) => change !== '');
  return (
    `context trimmed to fit ${data.context_window ?? '?'} tokens: ` +
    `${data.tokens_before ?? '?'} → ${data.tokens_after ?? '?'} tokens` +
    (changes.length > 0 ? ` (${changes.join(', ')})` : '')
  );
}

function applyUsage(state: TraceState, data: Data<'llm.usage'>, at: number): void {
  const node = nodeFor(state, data, at);
  const call = node.modelCalls.at(-1) ?? modelCallFor(node, at, false);
  if (data.usage) call.usage = usageOf(data.usage);
  if (data.cost !== undefined) call.cost = costOf(data.cost);
  // The streamed text was the calls the model wrote into it: what is left of it is the text.
  if (typeof data.repair?.text === 'string') call.text = data.repair.text;
  call.endedAt = at;
  call.lastAt = at;
}

function applyToolResult(state: TraceState, data: Data<'tool.result'>, at: number): void {
  const node = nodeFor(state, data, at);
  let toolCall = findToolCall(node, data.call_id);
  if (!toolCall) {
    toolCall = newToolCall(data.call_id ?? '', data.name ?? '', at);
    modelCallFor(node, at, false).toolCalls.push(toolCall);
  }
  toolCall.status = data.status || 'success';
  toolCall.durationMs = data.duration_ms ?? null;
  toolCall.response = data.response ?? '';
  toolCall.endedAt = at;
  toolCall.waitingSince = null;
  // The call event comes while the model still streams; the tool itself ran for duration_ms before its result.
  if (toolCall.durationMs !== null) toolCall.startedAt = at - toolCall.durationMs;
  markRepair(toolCall, data);
}

function applyApprovalRequested(state: TraceState, data: Data<'approval.requested'>, at: number): void {
  state.status = 'waiting';
  const node = nodeFor(state, data, at);
  const toolCall = findToolCall(node, data.call_id);
  if (toolCall && toolCall.endedAt === null) {
    toolCall.status = 'waiting';
    toolCall.waitingSince = at;
    // Waiting is not executing: the call starts when the person lets it.
    toolCall.startedAt = at;
  }
  if (node.status === 'running') node.status = 'waiting';
  state.approvals.push({
    id: data.approval_id ?? '',
    nodeId: data.node_id ?? null,
    toolName: data.tool ?? '',
    arguments: data.arguments ?? null,
    status: 'pending',
  });
}

function applyApprovalResolved(state: TraceState, data: Data<'approval.resolved'>, at: number): void {
  const approval = state.approvals.find((candidate) => candidate.id === (data.approval_id ?? ''));
  if (approval) approval.status = data.decision === 'reject' ? 'rejected' : 'approved';
  // A rejected call never runs: it may get no tool.result of its own.
  const node = nodeFor(state, data, at);
  const toolCall = findToolCall(node, data.call_id);
  if (toolCall?.status === 'waiting' && approval?.status === 'rejected') {
    toolCall.status = 'rejected';
    toolCall.endedAt = at;
  } else if (toolCall?.status === 'waiting') {
    toolCall.status = 'running';
    toolCall.startedAt = at;
  }
  if (toolCall) {
    toolCall.waitingSince = null;
    if (data.decision === 'approve') applyEditedArguments(toolCall, data, at);
  }
  if (node.status === 'waiting' && !node.modelCalls.some((call) => call.toolCalls.some(isWaiting))) {
    node.status = 'running';
  }
  if (state.status === 'waiting') state.status = 'running';
}

/** An approval with arguments other than the model's: the call shows what ran, and keeps the model's one click away. */
function applyEditedArguments(toolCall: ToolCallView, data: Data<'approval.resolved'>, at: number): void {
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
  toolCall.editedBy = data.decided_key_name || data.decided_by || null;
  toolCall.editedAt = at;
}

/** Applies one event; returns the same (mutated) state so it works on a Vue reactive object. */
export function applyEvent(state: TraceState, event: TraceEvent): TraceState {
  const at = timeOf(event.data);
  switch (event.type) {
    case 'run.started':
      state.status = 'running';
      state.startedAt = at;
      break;
    case 'node.started':
      state.nodes.push(newNode(event.data.node_id ?? '', event.data.node_type ?? '', event.data.label ?? null, at));
      break;
    case 'llm.delta':
      modelCallFor(nodeFor(state, event.data, at), at, true).text += event.data.delta ?? '';
      break;
    case 'llm.reasoning': {
      const call = modelCallFor(nodeFor(state, event.data, at), at, true);
      call.reasoning += event.data.delta ?? '';
      call.reasoningStartedAt ??= at;
      call.reasoningEndedAt = at;
      break;
    }
    case 'llm.retry':
      modelCallFor(nodeFor(state, event.data, at), at, false).retries.push(
        `attempt ${event.data.attempt ?? '?'}: ${event.data.reason ?? ''}`,
      );
      break;
    case 'llm.context_trimmed':
      modelCallFor(nodeFor(state, event.data, at), at, true).notes.push(contextTrimmedNote(event.data));
      break;
    case 'llm.embeddings_failed':
      modelCallFor(nodeFor(state, event.data, at), at, true).notes.push(
        `tool selection without embeddings from here on (${event.data.stage ?? ''}: ${event.data.message ?? ''})`,
      );
      break;
    case 'llm.output_retry': {
      const node = nodeFor(state, event.data, at);
      const call = node.modelCalls.at(-1) ?? modelCallFor(node, at, false);
      const errors = (event.data.errors ?? []).join('; ');
      call.notes.push(`answer sent back (retry ${event.data.attempt ?? '?'}): ${errors}`);
      break;
    }
    case 'llm.usage':
      applyUsage(state, event.data, at);
      break;
    case 'tool.call': {
      const call = modelCallFor(nodeFor(state, event.data, at), at, false);
      const toolCall = newToolCall(event.data.call_id ?? '', event.data.name ?? '', at);
      markRepair(toolCall, event.data);
      call.toolCalls.push(toolCall);
      break;
    }
    case 'tool.args.delta': {
      const node = nodeFor(state, event.data, at);
      const toolCall = findToolCall(node, event.data.call_id);
      if (toolCall) toolCall.args += event.data.delta ?? '';
      const call = node.modelCalls.at(-1);
      if (call) call.lastAt = at;
      break;
    }
    case 'tool.result':
      applyToolResult(state, event.data, at);
      break;
    case 'node.finished': {
      const node = nodeFor(state, event.data, at);
      node.status = event.data.status ?? '';
      node.durationMs = event.data.duration_ms ?? null;
      node.endedAt = at;
      node.output = event.data.output ?? null;
      node.error = event.data.error ?? null;
      break;
    }
    case 'node.item': {
      const item = toNestedRun(event.data);
      if (item) putNestedRun(nodeFor(state, event.data, at).items, item);
      break;
    }
    case 'run.finished':
      state.status = event.data.status ?? '';
      state.endedAt = at;
      state.outputs = event.data.outputs ?? null;
      state.error = event.data.error ?? null;
      state.usage = event.data.usage ? usageOf(event.data.usage) : null;
      break;
    case 'approval.requested':
      applyApprovalRequested(state, event.data, at);
      break;
    case 'approval.resolved':
      applyApprovalResolved(state, event.data, at);
      break;
    case 'llm.call':
      break;
  }
  return state;
}
