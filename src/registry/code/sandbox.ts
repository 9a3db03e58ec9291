import { type ChildProcess, fork } from 'node:child_process';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { CodeRunError } from './code-run-error';
import type { CodeRunRequest, CodeRunResult } from './code-run';
import type { IsolateSandboxOptions } from './isolate-sandbox';
import { type HostMessage, isChildMessage } from './sandbox-protocol';

export interface CodeSandboxOptions {
  /** Calls running at once; more wait for a free isolate. Default: the number of CPUs. */
  maxConcurrent?: number;
  /** Idle isolates kept per memory size. Default 2. */
  maxIdlePerSize?: number;
  /** Calls an isolate serves before it is replaced. Default 100. */
  maxCallsPerIsolate?: number;
  /** Console calls kept per run. Default 100. */
  maxLogEntries?: number;
  /** Console characters kept per run. Default 20 000. */
  maxLogChars?: number;
}

/** How long a cancelled call may take to stop before the child process is considered hung. */
const CANCEL_GRACE_MS = 2000;

const isReady = (message: unknown): boolean => isChildMessage(message) && message.type === 'ready';

interface Pending {
  resolve(result: CodeRunResult): void;
  reject(error: CodeRunError): void;
}

interface Child {
  process: ChildProcess;
  /** Settles once the child listens; hang detection must not count its start-up. */
  ready: Promise<void>;
}

/**
 * Runs user JavaScript in isolated-vm isolates inside a child process. isolated-vm enforces CPU
 * and memory limits, but one huge allocation (`new Array(1e8).fill(0)` in a 64 MiB isolate) is a
 * fatal V8 out-of-memory that aborts the whole process (isolated-vm #107, open since 2019). Here
 * that kills the child: the calls it was running fail, the next call starts a new child.
 */
export class CodeSandbox {
  private readonly childOptions: IsolateSandboxOptions;
  private readonly pending = new Map<number, Pending>();
  private child: Child | undefined;
  private nextId = 1;
  private disposed = false;

  constructor(options: CodeSandboxOptions = {}) {
    this.childOptions = {
      maxConcurrent: options.maxConcurrent ?? availableParallelism(),
      maxIdlePerSize: options.maxIdlePerSize ?? 2,
      maxCallsPerIsolate: options.maxCallsPerIsolate ?? 100,
      maxLogEntries: options.maxLogEntries ?? 100,
      maxLogChars: options.maxLogChars ?? 20_000,
    };
  }

  /** Runs `code` with `args`; resolves with the returned value or rejects with a CodeRunError. */
  run(request: CodeRunRequest): Promise<CodeRunResult> {
    if (this.disposed) return Promise.reject(new CodeRunError('unavailable', 'code sandbox is shut down'));
    const { signal, ...plain } = request;
    if (signal?.aborted) return Promise.reject(new CodeRunError('cancelled', 'code run was cancelled'));
    const { process: child, ready } = this.ensureChild();
    const id = this.nextId++;
    return new Promise<CodeRunResult>((resolve, reject) => {
      let hangTimer: NodeJS.Timeout | undefined;
      let settled = false;
      const onAbort = (): void => {
        this.send(child, { type: 'cancel', id });
        void ready.then(() => {
          if (!settled) hangTimer = setTimeout(() => child.kill('SIGKILL'), CANCEL_GRACE_MS);
        });
      };
      const settle = (): void => {
        settled = true;
        clearTimeout(hangTimer);
        signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
        if (this.pending.size === 0) this.setActive(child, false);
      };
      this.pending.set(id, {
        resolve: (result) => {
          settle();
          resolve(result);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.setActive(child, true);
      if (!this.send(child, { type: 'run', id, request: plain })) {
        this.pending.get(id)?.reject(new CodeRunError('unavailable', 'the code sandbox process is not reachable'));
      }
    });
  }

  /** Starts the child process ahead of the first call (it takes a few hundred ms). */
  async warmUp(): Promise<void> {
    if (this.disposed) return;
    const child = this.ensureChild();
    this.setActive(child.process, true);
    await child.ready;
    if (this.pending.size === 0) this.setActive(child.process, false);
  }

  /** Stops the child process; running calls fail. Call on application shutdown. */
  dispose(): void {
    this.disposed = true;
    this.child?.process.kill('SIGKILL');
    this.failAll(new CodeRunError('unavailable', 'code sandbox is shut down'));
  }

  private ensureChild(): Child {
    const current = this.child?.process;
    if (this.child && current?.exitCode === null && current.signalCode === null) return this.child;
    // From TypeScript sources (tests, benchmarks) the child needs the same transpiler hook.
    const entry = path.join(__dirname, `sandbox-process${path.extname(__filename)}`);
    const transpile = entry.endsWith('.ts') ? ['-r', '@swc-node/register'] : [];
    const child = fork(entry, [JSON.stringify(this.childOptions)], {
      // Node 20's startup snapshot and isolated-vm isolates can crash together; the child does not need it.
      execArgv: ['--no-node-snapshot', ...transpile],
      serialization: 'json',
    });
    const ready = new Promise<void>((resolve) => {
      child.on('message', (message: unknown) => (isReady(message) ? resolve() : this.onMessage(message)));
      child.once('exit', () => resolve());
    });
    child.on('exit', (code, signal) => this.onExit(child, code, signal));
    // A child that failed to spawn or to receive a message may never emit 'exit'.
    child.on('error', () => {
      child.kill('SIGKILL');
      this.onExit(child, null, null);
    });
    this.setActive(child, false);
    this.child = { process: child, ready };
    return this.child;
  }

  private onMessage(message: unknown): void {
    if (!isChildMessage(message) || message.type === 'ready') return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    if (message.type === 'failure') {
      pending.reject(new CodeRunError(message.reason, message.message, message.logs));
      return;
    }
    const { json, logs, durationMs } = message.output;
    try {
      pending.resolve({ value: JSON.parse(json) as unknown, logs, durationMs });
    } catch {
      pending.reject(new CodeRunError('unavailable', 'the code sandbox returned malformed JSON'));
    }
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child?.process === child) this.child = undefined;
    const how = signal ? `signal ${signal}` : `exit code ${code}`;
    this.failAll(
      new CodeRunError(
        'crashed',
        `the code sandbox process stopped (${how}) while this call ran; code that allocates a huge block at once ` +
          `(e.g. new Array(1e8).fill(0)) or hangs after being cancelled does this`,
      ),
    );
  }

  private failAll(error: CodeRunError): void {
    [...this.pending.values()].forEach((pending) => pending.reject(error));
  }

  private send(child: ChildProcess, message: HostMessage): boolean {
    if (!child.connected) return false;
    child.send(message, (error) => error && child.kill('SIGKILL'));
    return true;
  }

  /** An idle child must not keep the host process alive. */
  private setActive(child: ChildProcess, active: boolean): void {
    if (active) {
      child.ref();
      child.channel?.ref();
    } else {
      child.unref();
      child.channel?.unref();
    }
  }
}
