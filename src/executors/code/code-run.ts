import type { CodeLogEntry } from './sandbox-state';

/** One call of user code. Limits are already resolved against the operator's maxima. */
export interface CodeRunRequest {
  /** Body of an async function that receives `args`. */
  code: string;
  args: Record<string, unknown>;
  /** CPU time budget of the user code. */
  timeoutMs: number;
  memoryMb: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  /** Who the call runs for (the calling user); the fairness unit of CodeSandbox. */
  owner?: string;
}

export interface CodeRunResult {
  value: unknown;
  logs: CodeLogEntry[];
  /** Time spent in the sandbox, from getting an isolate to having the result. */
  durationMs: number;
  /** CPU time the code used (isolated-vm's cpuTime for JavaScript, /proc for Python's process). */
  cpuMs: number;
  /** Time spent waiting for a free slot before that; never counted against the call's limits. */
  queueMs: number;
}

/** What crosses the process boundary: the value stays a JSON string until the host parses it. */
export interface CodeRunOutput {
  json: string;
  logs: CodeLogEntry[];
  durationMs: number;
  cpuMs: number;
}

/** Wall-clock ceiling for a call whose CPU budget is `timeoutMs` (waiting for a free slot not included). */
export const wallTimeLimitMs = (timeoutMs: number): number => timeoutMs * 2 + 1000;
