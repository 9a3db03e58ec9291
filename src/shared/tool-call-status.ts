/** How one tool call ended: what `runTool` reports, the call log stores and the API shows. */
export const TOOL_CALL_STATUSES = [
  'success',
  'error',
  'timeout',
  'invalid_arguments',
  'not_found',
  'cancelled',
] as const;
export type ToolCallStatus = (typeof TOOL_CALL_STATUSES)[number];

/** Inside an agent loop a call may also be `skipped` (answered without running) or `malformed` (unreadable). */
export type AgentToolCallStatus = ToolCallStatus | 'skipped' | 'malformed';
