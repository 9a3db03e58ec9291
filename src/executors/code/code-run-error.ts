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

/**
 * A code tool call that failed; the message is written for the model, `reason` for code and logs. `cpuMs`: the
 * CPU time the code used before it failed, when it was measured (metadata `cpu_ms`, what quotas count).
 */
export class CodeRunError extends ToolExecutionError {
  constructor(
    readonly reason: CodeFailureReason,
    message: string,
    readonly logs: CodeLogEntry[] = [],
    readonly cpuMs?: number,
  ) {
    super(message, { metadata: { reason, logs, ...(cpuMs !== undefined && { cpu_ms: cpuMs }) } });
    this.name = 'CodeRunError';
  }

  /** The same failure with the CPU time the call used. */
  withCpu(cpuMs: number | undefined): CodeRunError {
    return cpuMs === undefined ? this : new CodeRunError(this.reason, this.message, this.logs, cpuMs);
  }
}
