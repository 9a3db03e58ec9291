import { CodeRunError } from './code-run-error';
import type { CodeRunOutput } from './code-run';
import { formatSize } from './format-size';
import type { CodeLogEntry, SandboxState } from './sandbox-state';

const MAX_DETAIL_CHARS = 200;

const firstLine = (text: string): string => text.split('\n', 1)[0].slice(0, MAX_DETAIL_CHARS);

/** Logs as reported, plus a note when the caps dropped some. */
export const collectedLogs = (state: SandboxState): CodeLogEntry[] =>
  state.droppedLogs > 0
    ? [...state.logs, { level: 'warn', message: `${state.droppedLogs} more console messages were dropped` }]
    : state.logs;

/** Turns what the isolate reported into the call's output, or the error the model will read. */
export const settleOutcome = (
  state: SandboxState,
  limits: { maxOutputBytes: number },
  durationMs: number,
  cpuMs: number,
): CodeRunOutput => {
  const logs = collectedLogs(state);
  const { outcome } = state;
  if (outcome === undefined) {
    throw new CodeRunError(
      'never_settled',
      'code never finished: it awaited a Promise that nothing can settle (the sandbox has no timers, I/O or callbacks)',
      logs,
    );
  }
  switch (outcome.status) {
    case 'ok': {
      const bytes = Buffer.byteLength(outcome.json);
      if (bytes > limits.maxOutputBytes) throw tooLarge(bytes, limits.maxOutputBytes, logs);
      return { json: outcome.json, logs, durationMs, cpuMs };
    }
    case 'threw':
      throw new CodeRunError(
        'threw',
        `code threw: ${outcome.message}${outcome.line === undefined ? '' : ` (line ${outcome.line})`}`,
        logs,
      );
    case 'syntax':
      throw new CodeRunError('syntax', `code does not compile: ${outcome.message}`, logs);
    case 'not_json':
      throw new CodeRunError('not_json', `code returned a value that is not JSON (${firstLine(outcome.detail)})`, logs);
    case 'too_large':
      throw tooLarge(outcome.size, limits.maxOutputBytes, logs);
  }
};

const tooLarge = (size: number, limit: number, logs: CodeLogEntry[]): CodeRunError =>
  new CodeRunError('too_large', `code output is ${formatSize(size)}, over the ${formatSize(limit)} limit`, logs);
