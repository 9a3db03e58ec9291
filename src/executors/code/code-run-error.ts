import { ToolExecutionError } from '../../shared/tool-errors';
import type { CodeLogEntry } from './sandbox-state';

export const CODE_FAILURE_REASONS = [
  'threw',
  'syntax',
  'not_json',
  'too_large',
  'cpu_time',
  'wall_time',
  'memory',
  'never_settled',
  'cancelled',
  'crashed',
  'busy',
  'unavailable',
] as const;
export type CodeFailureReason = (typeof CODE_FAILURE_REASONS)[number];

/** A code tool call that failed; the message is written for the model, `reason` for code and logs. */
export class CodeRunError extends ToolExecutionError {
  constructor(
    readonly reason: CodeFailureReason,
    message: string,
    readonly logs: CodeLogEntry[] = [],
  ) {
    super(message, { metadata: { reason, logs } });
    this.name = 'CodeRunError';
  }
}
