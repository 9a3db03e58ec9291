/** Event names streamed on GET /runs/:id/events, in the order a run produces them. */
export const RUN_EVENT_TYPES = [
  'run.started',
  'node.started',
  'llm.delta',
  'llm.reasoning',
  'llm.retry',
  'llm.context_trimmed',
  'llm.embeddings_failed',
  'llm.call',
  'tool.call',
  'tool.args.delta',
  'llm.usage',
  'llm.output_retry',
  'tool.result',
  'node.item',
  'approval.requested',
  'approval.resolved',
  'node.finished',
  'run.finished',
] as const;
export type RunEventType = (typeof RUN_EVENT_TYPES)[number];

export interface RunEvent {
  seq: number;
  type: RunEventType;
  data: Record<string, unknown>;
  at: string;
}
