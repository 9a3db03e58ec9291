import { isRecord } from '../../shared/is-record';

export const LOG_LEVELS = ['log', 'info', 'warn', 'error', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** One console call made by user code. */
export interface CodeLogEntry {
  level: LogLevel;
  message: string;
}

/** How the user function ended, as reported by the isolate runtime (see isolate-runtime.ts). */
export type SandboxOutcome =
  | { status: 'ok'; json: string }
  | { status: 'threw'; message: string; line?: number }
  | { status: 'syntax'; message: string }
  | { status: 'not_json'; detail: string }
  | { status: 'too_large'; size: number };

export interface SandboxState {
  /** Undefined while the user's Promise has not settled. */
  outcome: SandboxOutcome | undefined;
  logs: CodeLogEntry[];
  droppedLogs: number;
}

const readOutcome = (raw: unknown): SandboxOutcome | undefined => {
  if (raw === undefined) return undefined;
  if (!isRecord(raw)) throw new Error('sandbox reported a malformed outcome');
  const { status } = raw;
  if (status === 'ok' && typeof raw.json === 'string') return { status, json: raw.json };
  if (status === 'threw' && typeof raw.message === 'string') {
    const line = typeof raw.line === 'number' && Number.isInteger(raw.line) && raw.line > 0 ? raw.line : undefined;
    return { status, message: raw.message, line };
  }
  if (status === 'syntax' && typeof raw.message === 'string') return { status, message: raw.message };
  if (status === 'not_json' && typeof raw.detail === 'string') return { status, detail: raw.detail };
  if (status === 'too_large' && typeof raw.size === 'number') return { status, size: raw.size };
  throw new Error('sandbox reported a malformed outcome');
};

const isLogEntry = (value: unknown): value is CodeLogEntry =>
  isRecord(value) && typeof value.message === 'string' && (LOG_LEVELS as readonly unknown[]).includes(value.level);

/** Checks what the isolate handed back; it is produced by our runtime but travels through user-reachable objects. */
export const readSandboxState = (raw: unknown): SandboxState => {
  if (!isRecord(raw) || !Array.isArray(raw.logs) || typeof raw.droppedLogs !== 'number') {
    throw new Error('sandbox reported a malformed state');
  }
  const logs = raw.logs.filter(isLogEntry).map(({ level, message }) => ({ level, message }));
  return { outcome: readOutcome(raw.outcome), logs, droppedLogs: raw.droppedLogs };
};
