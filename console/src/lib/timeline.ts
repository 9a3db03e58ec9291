import { isWaiting, type TraceState } from './trace-state';

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
