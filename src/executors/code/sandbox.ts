import { CodeRunError } from './code-run-error';
import type { CodeRunRequest, CodeRunResult } from './code-run';
import { FairSlots } from './fair-slots';
import type { IsolateSandboxOptions } from './isolate-sandbox';
import { SandboxChild, type SandboxLogger } from './sandbox-child';
import type { ChildMessage } from './sandbox-protocol';
import { parseJsonWithin } from '../../shared/json-depth';

export interface CodeSandboxOptions {
  /** Sandbox child processes; a crash takes down one of them. Default 2. */
  processes?: number;
  /** Calls running at once in each process, each in its own isolate and thread. Default 8. */
  isolatesPerProcess?: number;
  /** Calls one owner may run at once; their further calls wait. Default half of all slots. */
  maxPerOwner?: number;
  /** How long a call may wait for a slot before it fails as `busy`. Default 30 000. */
  maxQueueMs?: number;
  /** Idle isolates kept per memory size and process. Default 2. */
  maxIdlePerSize?: number;
  /** Calls an isolate serves before it is replaced. Default 100. */
  maxCallsPerIsolate?: number;
  /** Console calls kept per run. Default 100. */
  maxLogEntries?: number;
  /** Console characters kept per run. Default 20 000. */
  maxLogChars?: number;
  /** Receives what the child processes print (V8 fatal-error banners), at debug level. */
  logger?: SandboxLogger;
  /** Observes the pool (tests, metrics). */
  onEvent?: (event: CodeSandboxEvent) => void;
}

export type CodeSandboxEvent =
  | { type: 'call-started'; id: number; owner: string; pid: number | undefined }
  | { type: 'process-started'; pid: number | undefined }
  | { type: 'process-crashed'; pid: number | undefined; culprit: number | undefined; how: string }
  | { type: 'call-retried'; id: number };

/** How long a cancelled call may take to stop before its process is considered hung. */
const CANCEL_GRACE_MS = 2000;
const ANONYMOUS_OWNER = '';

interface Call {
  readonly id: number;
  readonly owner: string;
  readonly request: Omit<CodeRunRequest, 'signal' | 'owner'>;
  readonly signal: AbortSignal | undefined;
  queuedAt: number;
  queueMs: number;
  retried: boolean;
  cancelled: boolean;
  child: SandboxChild | undefined;
  timer: NodeJS.Timeout | undefined;
  resolve(result: CodeRunResult): void;
  reject(error: CodeRunError): void;
}

/**
 * Runs user JavaScript in isolated-vm isolates inside a few child processes. isolated-vm enforces
 * CPU and memory limits, but one huge allocation (`new Array(1e8).fill(0)` in a 64 MiB isolate) is
 * a fatal V8 out-of-memory that leaves the whole process unsound (isolated-vm #107). The child
 * names the call that did it; that call fails, the process is replaced at once, and the other
 * calls it was running start again on a fresh one. Re-running is safe: code tools are pure (no
 * I/O, timers or state between calls), so a second run can only give the same answer.
 *
 * Admission is fair per owner (FairSlots): a user's spinning calls hold at most `maxPerOwner`
 * slots, and time spent waiting for a slot never counts against a call's CPU or wall-clock limit.
 */
export class CodeSandbox {
  private readonly childOptions: IsolateSandboxOptions;
  private readonly processCount: number;
  private readonly maxQueueMs: number;
  private readonly slots: FairSlots<Call>;
  private readonly calls = new Map<number, Call>();
  private children: SandboxChild[] = [];
  private nextId = 1;
  private disposed = false;

  constructor(private readonly options: CodeSandboxOptions = {}) {
    this.processCount = options.processes ?? 2;
    const isolatesPerProcess = options.isolatesPerProcess ?? 8;
    const slots = this.processCount * isolatesPerProcess;
    this.maxQueueMs = options.maxQueueMs ?? 30_000;
    this.childOptions = {
      maxConcurrent: isolatesPerProcess,
      maxIdlePerSize: options.maxIdlePerSize ?? 2,
      maxCallsPerIsolate: options.maxCallsPerIsolate ?? 100,
      maxLogEntries: options.maxLogEntries ?? 100,
      maxLogChars: options.maxLogChars ?? 20_000,
    };
    const perOwner = options.maxPerOwner ?? Math.max(1, Math.floor(slots / 2));
    this.slots = new FairSlots<Call>({ slots, perOwner }, (call) => this.start(call));
  }

  /** Runs `code` with `args`; resolves with the returned value or rejects with a CodeRunError. */
  run(request: CodeRunRequest): Promise<CodeRunResult> {
    if (this.disposed) return Promise.reject(new CodeRunError('unavailable', 'code sandbox is shut down'));
    const { signal, owner = ANONYMOUS_OWNER, ...plain } = request;
    if (signal?.aborted) return Promise.reject(new CodeRunError('cancelled', 'code run was cancelled'));
    return new Promise<CodeRunResult>((resolve, reject) => {
      const call: Call = {
        id: this.nextId++,
        owner,
        request: plain,
        signal,
        queuedAt: performance.now(),
        queueMs: 0,
        retried: false,
        cancelled: false,
        child: undefined,
        timer: undefined,
        resolve,
        reject,
      };
      this.calls.set(call.id, call);
      signal?.addEventListener('abort', () => this.cancel(call), { once: true });
      this.queue(call, false);
    });
  }

  /** Starts the child processes ahead of the first call (each takes a few hundred ms). */
  async warmUp(): Promise<void> {
    if (this.disposed) return;
    const children = this.pool();
    children.forEach((child) => child.setActive(true));
    await Promise.all(children.map((child) => child.ready));
    children.forEach((child) => child.setActive(child.running.size > 0));
  }

  /** Calls running and waiting, and how many may run at once; for metrics and tests. */
  get usage(): { running: number; waiting: number; capacity: number } {
    return {
      running: this.slots.runningCount,
      waiting: this.slots.waitingCount,
      capacity: this.processCount * this.childOptions.maxConcurrent,
    };
  }

  /** Stops the child processes; running and waiting calls fail. Call on application shutdown. */
  dispose(): void {
    this.disposed = true;
    this.children.forEach((child) => child.kill());
    this.children = [];
    this.slots.drain();
    [...this.calls.values()].forEach((call) =>
      this.settle(call, () => call.reject(new CodeRunError('unavailable', 'code sandbox is shut down'))),
    );
  }

  private queue(call: Call, first: boolean): void {
    clearTimeout(call.timer);
    call.queuedAt = performance.now();
    call.timer = setTimeout(() => {
      if (!this.slots.remove(call.owner, call)) return;
      const message = `no code sandbox slot became free within ${this.maxQueueMs} ms; too many code calls are running`;
      this.settle(call, () => call.reject(new CodeRunError('busy', message)));
    }, this.maxQueueMs);
    this.slots.enqueue(call.owner, call, first);
  }

  private start(call: Call): void {
    clearTimeout(call.timer);
    call.timer = undefined;
    call.queueMs += performance.now() - call.queuedAt;
    const child = this.leastBusy();
    call.child = child;
    child.running.add(call.id);
    child.setActive(true);
    this.options.onEvent?.({ type: 'call-started', id: call.id, owner: call.owner, pid: child.process.pid });
    // A child that is gone reports its exit, which retries the call.
    child.send({ type: 'run', id: call.id, request: call.request });
  }

  private cancel(call: Call): void {
    call.cancelled = true;
    if (this.slots.remove(call.owner, call)) {
      this.settle(call, () => call.reject(new CodeRunError('cancelled', 'code run was cancelled')));
      return;
    }
    const child = call.child;
    if (!child) return;
    child.send({ type: 'cancel', id: call.id });
    void child.ready.then(() => {
      if (this.calls.has(call.id) && call.child === child) {
        call.timer = setTimeout(() => this.crashed(child, call.id, 'a cancelled call did not stop'), CANCEL_GRACE_MS);
      }
    });
  }

  private onMessage(child: SandboxChild, message: Exclude<ChildMessage, { type: 'ready' }>): void {
    const call = this.calls.get(message.id);
    if (!call || call.child !== child) return;
    switch (message.type) {
      case 'crashed':
        this.crashed(child, call.id, message.message);
        return;
      case 'failure':
        this.settle(call, () =>
          call.reject(new CodeRunError(message.reason, message.message, message.logs, validCpu(message.cpuMs))),
        );
        return;
      case 'result': {
        const { json, logs, durationMs } = message.output;
        const cpuMs = validCpu(message.output.cpuMs) ?? durationMs;
        let value: unknown;
        try {
          value = parseJsonWithin(json);
        } catch {
          this.settle(call, () =>
            call.reject(new CodeRunError('unavailable', 'the code sandbox returned malformed JSON')),
          );
          return;
        }
        this.settle(call, () => call.resolve({ value, logs, durationMs, cpuMs, queueMs: call.queueMs }));
      }
    }
  }

  /**
   * The process is gone or unsound. `culpritId` names the call that did it when known; without a
   * name and with one call running, that call is taken for it. Calls of the culprit's code fail
   * with it; the others run once more on a fresh process.
   */
  private crashed(child: SandboxChild, culpritId: number | undefined, how: string): void {
    if (!this.children.includes(child)) return;
    this.children = this.children.filter((candidate) => candidate !== child);
    child.kill();
    const victims = [...child.running].flatMap((id) => this.calls.get(id) ?? []);
    const culprit = this.calls.get(culpritId ?? -1) ?? (victims.length === 1 ? victims[0] : undefined);
    this.options.onEvent?.({ type: 'process-crashed', pid: child.process.pid, culprit: culprit?.id, how });
    if (!this.disposed) this.pool();
    for (const call of victims) {
      const fail = (error: CodeRunError): void => this.settle(call, () => call.reject(error));
      if (call.cancelled) fail(new CodeRunError('cancelled', 'code run was cancelled'));
      else if (call === culprit) fail(crashError(call, how));
      else if (culprit && call.request.code === culprit.request.code) fail(crashError(call, how, 'sibling'));
      else if (call.retried || this.disposed) fail(crashError(call, how, 'twice'));
      else this.retry(call, child);
    }
  }

  private retry(call: Call, child: SandboxChild): void {
    call.retried = true;
    call.child = undefined;
    child.running.delete(call.id);
    this.options.onEvent?.({ type: 'call-retried', id: call.id });
    this.queue(call, true);
    this.slots.release(call.owner);
  }

  /** Ends a call whatever the outcome, and frees its slot once. */
  private settle(call: Call, finish: () => void): void {
    if (!this.calls.delete(call.id)) return;
    clearTimeout(call.timer);
    const child = call.child;
    if (child?.running.delete(call.id)) {
      this.slots.release(call.owner);
      if (child.running.size === 0) child.setActive(false);
    }
    finish();
  }

  /** The live children, topped up to the configured count. */
  private pool(): SandboxChild[] {
    while (this.children.length < this.processCount) {
      const child = new SandboxChild(
        this.childOptions,
        {
          onMessage: (from, message) => this.onMessage(from, message),
          onExit: (from, how) => this.crashed(from, undefined, `the process stopped (${how})`),
        },
        this.options.logger,
      );
      this.children.push(child);
      this.options.onEvent?.({ type: 'process-started', pid: child.process.pid });
    }
    return this.children;
  }

  private leastBusy(): SandboxChild {
    return this.pool().reduce((best, child) => (child.running.size < best.running.size ? child : best));
  }
}

const crashError = (call: Call, how: string, role?: 'sibling' | 'twice'): CodeRunError => {
  const hint =
    `code that allocates a huge block at once (e.g. new Array(1e8).fill(0) in a ${call.request.memoryMb} MiB ` +
    'isolate) or that does not stop when cancelled does this';
  const message =
    role === 'sibling'
      ? `another call of this code crashed the code sandbox (${how}); ${hint}`
      : role === 'twice'
        ? `the code sandbox crashed twice while this call ran, because of other code (${how}); try again`
        : `this code crashed the code sandbox (${how}); ${hint}. The sandbox was replaced; other calls were not affected`;
  return new CodeRunError('crashed', message);
};

/** A CPU time reported by the child process, if it is one. */
const validCpu = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
