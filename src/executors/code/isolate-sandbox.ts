import type ivm from 'isolated-vm';
import { CodeRunError } from './code-run-error';
import { errorMessage, errorText } from '../../shared/error-text';
import { type CodeRunOutput, type CodeRunRequest, wallTimeLimitMs } from './code-run';
import { IsolatePool, type IsolateLease, type IsolatePoolOptions } from './isolate-pool';
import { ISOLATE_RUNTIME_SOURCE } from './isolate-runtime';
import { collectedLogs, settleOutcome } from './settle-outcome';
import { type CodeLogEntry, readSandboxState, type SandboxState } from './sandbox-state';

export interface IsolateSandboxOptions extends IsolatePoolOptions {
  maxLogEntries: number;
  maxLogChars: number;
}

/** Budget for our own runtime steps (bootstrap, collecting the result), not the user's. */
const RUNTIME_STEP_TIMEOUT_MS = 1000;
const MAX_MESSAGE_CHARS = 1000;

type StopReason = 'cancelled' | 'wall_time';
type Dispatcher = ivm.Reference<(command: string, code?: string, argsJson?: string) => unknown>;

/**
 * Runs user code in isolated-vm, in this process: a fresh context per call (no state survives a
 * call) inside an isolate reused from a pool, retired after any abnormal end. Use it behind
 * CodeSandbox, which keeps it in a child process: some allocations abort the whole process.
 */
export class IsolateSandbox {
  private readonly pool: IsolatePool;

  constructor(private readonly options: IsolateSandboxOptions) {
    this.pool = new IsolatePool(options);
  }

  /** `onCatastrophicError`: see IsolateLease; the process must be ended after it fires. */
  async run(request: CodeRunRequest, onCatastrophicError?: (message: string) => void): Promise<CodeRunOutput> {
    const argsJson = JSON.stringify(request.args);
    let lease: IsolateLease;
    try {
      lease = await this.pool.acquire(request.memoryMb, request.signal);
    } catch (error) {
      if (request.signal?.aborted) throw new CodeRunError('cancelled', 'code run was cancelled');
      throw new CodeRunError('unavailable', `code sandbox is unavailable: ${errorMessage(error)}`);
    }
    lease.onCatastrophicError = onCatastrophicError;
    const started = performance.now();
    const cpuStart = cpuTimeMs(lease.isolate) ?? 0;
    const cpuUsed = (): number | undefined => {
      const now = cpuTimeMs(lease.isolate);
      return now === undefined ? undefined : now - cpuStart;
    };
    let stopReason: StopReason | undefined;
    const stop = (reason: StopReason): void => {
      stopReason ??= reason;
      if (!lease.isolate.isDisposed) lease.isolate.dispose();
    };
    const onAbort = (): void => stop('cancelled');
    const guard = setTimeout(() => stop('wall_time'), wallTimeLimitMs(request.timeoutMs));
    request.signal?.addEventListener('abort', onAbort, { once: true });
    // The signal may have fired while this call waited for an isolate.
    if (request.signal?.aborted) onAbort();
    let reusable = false;
    try {
      const state = await this.runInIsolate(lease.isolate, request, argsJson);
      reusable = state.outcome !== undefined;
      return settleOutcome(state, request, performance.now() - started, cpuUsed() ?? 0);
    } catch (error) {
      const failure = error instanceof CodeRunError ? error : this.failure(error, stopReason, request, lease);
      // A disposed isolate (stopped at the wall-clock limit or cancelled) no longer tells its CPU time.
      throw failure.withCpu(cpuUsed() ?? (failure.reason === 'cpu_time' ? request.timeoutMs : undefined));
    } finally {
      clearTimeout(guard);
      request.signal?.removeEventListener('abort', onAbort);
      this.pool.release(lease, reusable && stopReason === undefined);
    }
  }

  dispose(): void {
    this.pool.close();
  }

  private async runInIsolate(isolate: ivm.Isolate, request: CodeRunRequest, argsJson: string): Promise<SandboxState> {
    const context = await isolate.createContext();
    let dispatcher: Dispatcher | undefined;
    try {
      const limits = {
        maxLogEntries: this.options.maxLogEntries,
        maxLogChars: this.options.maxLogChars,
        maxMessageChars: MAX_MESSAGE_CHARS,
        maxOutputChars: request.maxOutputBytes,
      };
      dispatcher = (await context.evalClosure(ISOLATE_RUNTIME_SOURCE, [limits], {
        timeout: RUNTIME_STEP_TIMEOUT_MS,
        arguments: { copy: true },
        result: { reference: true },
      })) as Dispatcher;
      // Microtasks run before this resolves, under the same timeout: afterwards nothing in the
      // isolate can still be running, so a pending outcome means a Promise that never settles.
      await dispatcher.apply(undefined, ['start', request.code, argsJson], { timeout: request.timeoutMs });
      return await this.collect(dispatcher);
    } catch (error) {
      if (dispatcher && !isolate.isDisposed) throw await this.withLogs(error, dispatcher);
      throw error;
    } finally {
      if (!isolate.isDisposed) {
        dispatcher?.release();
        context.release();
      }
    }
  }

  private async collect(dispatcher: Dispatcher): Promise<SandboxState> {
    const raw = await dispatcher.apply(undefined, ['collect'], {
      timeout: RUNTIME_STEP_TIMEOUT_MS,
      result: { copy: true },
    });
    return readSandboxState(raw);
  }

  /** After a CPU timeout the isolate still holds the console output, which helps to see where it looped. */
  private async withLogs(error: unknown, dispatcher: Dispatcher): Promise<unknown> {
    try {
      const logs = collectedLogs(await this.collect(dispatcher));
      return new LoggedFailure(error, logs);
    } catch {
      return error;
    }
  }

  private failure(
    error: unknown,
    stopReason: StopReason | undefined,
    request: CodeRunRequest,
    lease: IsolateLease,
  ): CodeRunError {
    const logs = error instanceof LoggedFailure ? error.logs : [];
    const cause = error instanceof LoggedFailure ? error.cause : error;
    const { message } = errorText(cause);
    if (stopReason === 'cancelled') return new CodeRunError('cancelled', 'code run was cancelled', logs);
    if (stopReason === 'wall_time') {
      const limit = wallTimeLimitMs(request.timeoutMs);
      return new CodeRunError('wall_time', `code exceeded its wall-clock limit of ${limit} ms`, logs);
    }
    if (message.includes('memory limit')) {
      return new CodeRunError('memory', `code exceeded its memory limit of ${lease.memoryMb} MiB`, logs);
    }
    if (message.includes('timed out')) {
      return new CodeRunError('cpu_time', `code exceeded its CPU time limit of ${request.timeoutMs} ms`, logs);
    }
    return new CodeRunError('unavailable', `code sandbox failed: ${message}`, logs);
  }
}

/** The CPU time the isolate has used in all, in ms; undefined once it is disposed. */
const cpuTimeMs = (isolate: ivm.Isolate): number | undefined => {
  if (isolate.isDisposed) return undefined;
  try {
    return Number(isolate.cpuTime) / 1e6;
  } catch {
    return undefined;
  }
};

class LoggedFailure extends Error {
  constructor(
    override readonly cause: unknown,
    readonly logs: CodeLogEntry[],
  ) {
    super('code failed after writing logs');
  }
}
