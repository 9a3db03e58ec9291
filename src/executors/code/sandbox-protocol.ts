import { CODE_FAILURE_REASONS, type CodeFailureReason } from './code-run-error';
import type { CodeRunOutput, CodeRunRequest } from './code-run';
import type { CodeLogEntry } from './sandbox-state';
import { isRecord } from '../../shared/is-record';

/** Messages between CodeSandbox and its child process (JSON over the IPC channel). */
export type HostMessage =
  { type: 'run'; id: number; request: Omit<CodeRunRequest, 'signal' | 'owner'> } | { type: 'cancel'; id: number };

export type ChildMessage =
  | { type: 'ready' }
  | { type: 'result'; id: number; output: CodeRunOutput }
  | { type: 'failure'; id: number; reason: CodeFailureReason; message: string; logs: CodeLogEntry[]; cpuMs?: number }
  /** The call's isolate hit a fatal V8 error; the process must be replaced. */
  | { type: 'crashed'; id: number; message: string };

export const isChildMessage = (value: unknown): value is ChildMessage => {
  if (isRecord(value) && value.type === 'ready') return true;
  if (!isRecord(value) || typeof value.id !== 'number') return false;
  if (value.type === 'result') return isRecord(value.output) && typeof value.output.json === 'string';
  if (value.type === 'crashed') return typeof value.message === 'string';
  return (
    value.type === 'failure' &&
    typeof value.message === 'string' &&
    Array.isArray(value.logs) &&
    (CODE_FAILURE_REASONS as readonly unknown[]).includes(value.reason)
  );
};

export const isHostMessage = (value: unknown): value is HostMessage =>
  isRecord(value) &&
  typeof value.id === 'number' &&
  (value.type === 'cancel' || (value.type === 'run' && isRecord(value.request)));
