/** How one tool call ended: what `runTool` reports, the call log stores and the API shows. */
export const TOOL_CALL_STATUSES = [
  'success',
  'error',
  'timeout',
  'invalid_arguments',
  'not_found',
  'cancelled',
  // A mutating call in flight when its run's process died: not repeated, its effect unknown.
  'unknown_outcome',
  // A call a person rejected (tools that require approval): not executed.
  'rejected',
] as const;
export type ToolCallStatus = (typeof TOOL_CALL_STATUSES)[number];

/** Inside an agent loop a call may also be `skipped` (answered without running) or `malformed` (unreadable). */
export type AgentToolCallStatus = ToolCallStatus | 'skipped' | 'malformed';
