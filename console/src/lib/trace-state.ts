/** What the run page shows of a run: nodes → model calls → tool calls, and the approvals asked for. */

import type { Cost } from './cost';
import type { NestedRunView } from './nested-runs';

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
export const newToolCall = (callId: string, name: string, at: number): ToolCallView => ({
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

/** A node that just started: running, with no model calls yet. */
export const newNode = (id: string, type: string, label: string | null, at: number): NodeView => ({
  id,
  type,
  label,
  status: 'running',
  startedAt: at,
  endedAt: null,
  durationMs: null,
  output: null,
  error: null,
  modelCalls: [],
  items: [],
});

export const isWaiting = (call: ToolCallView) => call.status === 'waiting';
