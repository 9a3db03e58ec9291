import type { ArgumentError } from './argument-error';
import type { ToolCallStatus } from './tool-call-status';
import type { ToolExecuteResult } from './tool-definition';
import type { ToolCall, ToolCallRepair } from './tool-types';

export type ToolErrorKind = 'invalid_arguments' | 'not_found' | 'timeout' | 'execution_error' | 'forbidden';

/**
 * Everything known about one tool call once it is over, on every path: what runTool returns, what the agent loop
 * reads (a narrow view of it, see LoopToolOutcome) and what a call's log record is made from (see toCallRecord).
 */
export interface ToolCallOutcome {
  call: ToolCall;
  toolName: string;
  status: ToolCallStatus;
  errorKind?: ToolErrorKind;
  /** The text the model gets back. */
  response: string;
  data?: unknown;
  /** Field errors when the arguments were rejected. */
  errors?: ArgumentError[];
  metadata: { duration_ms: number; repaired_arguments?: boolean; repair_note?: string } & Record<string, unknown>;
  /** How the call was repaired: recovered from the model's text (the call's own mark), else `arguments` when its JSON was. */
  repair?: ToolCallRepair;
  /** Validated (and `parseParams`-transformed) arguments. */
  params?: Record<string, unknown>;
  usage?: ToolExecuteResult['usage'];
  stop?: boolean;
  startedAt: Date;
  finishedAt: Date;
}
