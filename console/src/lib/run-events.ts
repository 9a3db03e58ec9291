import type {
  ApprovalRequestedEvent,
  ApprovalResolvedEvent,
  LlmCallEvent,
  LlmContextTrimmedEvent,
  LlmDeltaEvent,
  LlmEmbeddingsFailedEvent,
  LlmOutputRetryEvent,
  LlmReasoningEvent,
  LlmRetryEvent,
  LlmUsageEvent,
  NodeFinishedEvent,
  NodeItemEvent,
  NodeStartedEvent,
  RunFinishedEvent,
  RunStartedEvent,
  ToolArgsDeltaEvent,
  ToolCallEvent,
  ToolResultEvent,
} from '../api/types';

/** Each event of a run's stream (the SSE `event:` name) with its `data:`, typed from the API's event schema. */
export interface RunEventDataByName {
  'run.started': RunStartedEvent;
  'node.started': NodeStartedEvent;
  'llm.delta': LlmDeltaEvent;
  'llm.reasoning': LlmReasoningEvent;
  'llm.retry': LlmRetryEvent;
  'llm.context_trimmed': LlmContextTrimmedEvent;
  'llm.embeddings_failed': LlmEmbeddingsFailedEvent;
  'llm.call': LlmCallEvent;
  'tool.call': ToolCallEvent;
  'tool.args.delta': ToolArgsDeltaEvent;
  'llm.usage': LlmUsageEvent;
  'llm.output_retry': LlmOutputRetryEvent;
  'tool.result': ToolResultEvent;
  'node.item': NodeItemEvent;
  'approval.requested': ApprovalRequestedEvent;
  'approval.resolved': ApprovalResolvedEvent;
  'node.finished': NodeFinishedEvent;
  'run.finished': RunFinishedEvent;
}
export type RunEventName = keyof RunEventDataByName;

/** One event of a run: its name and its data, the one narrowing the other. */
export type TraceEvent = { [Name in RunEventName]: { type: Name; data: RunEventDataByName[Name] } }[RunEventName];

const NAMES: Record<RunEventName, true> = {
  'run.started': true,
  'node.started': true,
  'llm.delta': true,
  'llm.reasoning': true,
  'llm.retry': true,
  'llm.context_trimmed': true,
  'llm.embeddings_failed': true,
  'llm.call': true,
  'tool.call': true,
  'tool.args.delta': true,
  'llm.usage': true,
  'llm.output_retry': true,
  'tool.result': true,
  'node.item': true,
  'approval.requested': true,
  'approval.resolved': true,
  'node.finished': true,
  'run.finished': true,
};

/**
 * An SSE message as a run event; null for an event this console does not know (a newer service) or data that is
 * not a JSON object. The service writes the data from the same schema the types come from.
 */
export function toTraceEvent(name: string, json: string): TraceEvent | null {
  if (!Object.hasOwn(NAMES, name)) return null;
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch {
    return null;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return null;
  return { type: name, data } as TraceEvent;
}
