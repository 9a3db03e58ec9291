import type { CallKey, ToolCallRecord } from './call-record';

const keyOf = (call: CallKey): string => JSON.stringify([call.nodeId, call.callId]);

/**
 * The calls among `calls` (a run's answered calls, in the order they were made) that `logged` has no row for. A
 * model may give two calls of one node the same id: a node and call id with n rows stands for its first n calls.
 */
export function unloggedCalls(calls: readonly ToolCallRecord[], logged: readonly CallKey[]): ToolCallRecord[] {
  const rows = new Map<string, number>();
  for (const row of logged) rows.set(keyOf(row), (rows.get(keyOf(row)) ?? 0) + 1);
  return calls.filter((call) => {
    const key = keyOf(call);
    const left = rows.get(key) ?? 0;
    rows.set(key, left - 1);
    return left <= 0;
  });
}
