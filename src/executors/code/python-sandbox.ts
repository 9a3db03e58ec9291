import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { Socket } from 'node:net';
import { CodeRunError } from './code-run-error';
import { type CodeRunRequest, type CodeRunResult, wallTimeLimitMs } from './code-run';
import { FairSlots } from './fair-slots';
import { capDataGrowth } from './memory-cap';
import { firstChildPid, type ProcessUsage, processUsage } from './process-usage';
import type { SandboxLogger } from './sandbox-child';
import type { CodeLogEntry, SandboxOutcome } from './sandbox-state';
import { settleOutcome } from './settle-outcome';
import { packageRoot } from '../../common/package-root';
import { parseJsonWithin } from '../../shared/json-depth';
import { isRecord } from '../../shared/is-record';

/** `namespaces`: own user, network and PID namespaces (needs `unshare`); `none`: only Node's permission model. */
export type PythonIsolation = 'namespaces' | 'none';

export interface PythonSandboxOptions {
  /** Python processes; each runs one call at a time for one owner. */
  processes: number;
  /** Calls one owner may run at once. Default half the processes (at least 1). */
  maxPerOwner?: number;
  /** How long a call may wait for a process before it fails as `busy`. */
  maxQueueMs: number;
  isolation: PythonIsolation;
  logger?: SandboxLogger;
}

type ChildMessage =
  | { type: 'ready' }
  | { type: 'done'; id: number; outcome: SandboxOutcome; logs: CodeLogEntry[]; durationMs: number }
  | { type: 'checked'; id: number; problem: { line: number | null; message: string } | null };

interface Call {
  readonly id: number;
  readonly owner: string;
  readonly request: Omit<CodeRunRequest, 'signal' | 'owner'>;
  queuedAt: number;
  queueMs: number;
  timer: NodeJS.Timeout | undefined;
  worker: PythonProcess | undefined;
  /** What /proc said the process had used when the call was sent to it. */
  base: ProcessUsage | undefined;
  /** Its process's data segment may grow by `memoryMb` at most (RLIMIT_DATA): Python raises MemoryError past it. */
  capped: boolean;
  settled: boolean;
  resolve(result: CodeRunResult): void;
  reject(error: CodeRunError): void;
}

const POLL_MS = 20;
const MIB = 1024 * 1024;
const START_TIMEOUT_MS = 120_000;

/** The CPU time the call's process used since the call was sent to it (ticks of 10 ms), if /proc tells. */
const cpuUsed = (call: Call): number | undefined => {
  const now = call.worker?.usage();
  return now && call.base ? now.cpuMs - call.base.cpuMs : undefined;
};

/** Whether this machine can start a process in its own user, network and PID namespaces. */
export const namespacesAvailable = (): boolean =>
  spawnSync('unshare', ['--user', '--map-root-user', '--net', '--pid', '--fork', 'true'], { timeout: 5000 }).status ===
  0;

/** One Python process: Pyodide loaded once, serving one owner's calls one at a time. */
class PythonProcess {
  readonly child: ChildProcess;
  readonly ready: Promise<boolean>;
  owner: string | undefined;
  call: Call | undefined;
  lastUsed = 0;
  private readonly checks = new Map<number, (problem: { line: number | null; message: string } | null) => void>();

  constructor(
    isolation: PythonIsolation,
    onMessage: (from: PythonProcess, message: ChildMessage) => void,
    onExit: (from: PythonProcess, how: string) => void,
    logger?: SandboxLogger,
  ) {
    const pyodide = dirname(require.resolve('pyodide/package.json'));
    // The child script lives in runtime/ beside package.json, from src/ and from dist/ alike.
    const script = join(packageRoot(), 'runtime', 'python-sandbox-child.cjs');
    const node = [
      '--experimental-permission',
      `--allow-fs-read=${pyodide}/`,
      `--allow-fs-read=${script}`,
      '--no-warnings',
      script,
      join(pyodide, 'pyodide.js'),
    ];
    const [command, args] =
      isolation === 'namespaces'
        ? [
            'unshare',
            ['--user', '--map-root-user', '--net', '--pid', '--fork', '--kill-child', process.execPath, ...node],
          ]
        : [process.execPath, node];
    // Nothing of the service's environment (credentials, database URLs) reaches the child.
    this.child = spawn(command, args, {
      env: { PATH: '/usr/bin:/bin' },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'json',
    });
    const pid = this.child.pid ?? 'unknown';
    for (const stream of [this.child.stdout, this.child.stderr]) {
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => logger?.debug(`python sandbox process ${pid}: ${chunk.trimEnd()}`));
      if (stream instanceof Socket) stream.unref();
    }
    this.ready = new Promise<boolean>((resolve) => {
      this.child.on('message', (message: unknown) => {
        if (!isRecord(message)) return;
        if (message.type === 'ready') resolve(true);
        else if (message.type === 'checked') this.checks.get(message.id as number)?.(message.problem as never);
        else onMessage(this, message as ChildMessage);
      });
      this.child.once('exit', () => resolve(false));
    });
    this.child.once('exit', (code, signal) => {
      this.checks.forEach((done) => done({ line: null, message: 'the Python sandbox stopped while checking' }));
      onExit(this, signal ? `signal ${signal}` : `exit code ${code}`);
    });
    this.child.on('error', () => this.kill());
    this.setActive(false);
  }

  /** The pid /proc knows the runtime by (inside namespaces, the child of `unshare`). */
  get runtimePid(): number | undefined {
    const pid = this.child.pid;
    if (pid === undefined) return undefined;
    return this.child.spawnfile === 'unshare' ? firstChildPid(pid) : pid;
  }

  /** What /proc says the runtime has used so far; undefined when it cannot tell. */
  usage(): ProcessUsage | undefined {
    const pid = this.runtimePid;
    return pid === undefined ? undefined : processUsage(pid);
  }

  send(message: Record<string, unknown>): void {
    if (this.child.connected) this.child.send(message, (error) => error && this.kill());
  }

  check(id: number, code: string): Promise<{ line: number | null; message: string } | null> {
    return new Promise((resolve) => {
      this.checks.set(id, (problem) => {
        this.checks.delete(id);
        resolve(problem);
      });
      this.send({ type: 'check', id, code });
    });
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }

  setActive(active: boolean): void {
    if (active) this.child.ref();
    else this.child.unref();
    const channel = this.child.channel as { ref?(): void; unref?(): void } | undefined;
    if (active) channel?.ref?.();
    else channel?.unref?.();
  }
}

/**
 * Runs user Python (Pyodide, CPython compiled to WebAssembly) in child processes. The isolation is the
 * operating system's, not the runtime's: Python can reach JavaScript objects through Pyodide's bridge, so the
 * child runs with no environment, under Node's permission model (it may read only Pyodide and its own
 * script: no other file, no child processes, no workers, no native addons) and, with `namespaces`, in its
 * own user, network (no interface but a down loopback) and PID namespaces. Files the code writes live in
 * Pyodide's in-memory file system; /tmp is emptied before every call.
 *
 * A process serves one owner at a time, so one user's code can never change what another's sees (module
 * state lives on between calls); another owner gets it after a restart. Memory is capped before each call
 * (RLIMIT_DATA: what the process uses plus `memory_mb`), so an allocation past it fails inside Python with
 * MemoryError and the process serves the next call. CPU time (and memory, where prlimit is missing) is read
 * from /proc while a call runs, and a call over its limit (or cancelled) kills its process, which is replaced.
 */
export class PythonSandbox {
  private readonly slots: FairSlots<Call>;
  private readonly calls = new Map<number, Call>();
  private processes: PythonProcess[] = [];
  private nextId = 1;
  private disposed = false;

  constructor(private readonly options: PythonSandboxOptions) {
    const perOwner = options.maxPerOwner ?? Math.max(1, Math.floor(options.processes / 2));
    this.slots = new FairSlots<Call>({ slots: options.processes, perOwner }, (call) => {
      this.start(call).catch((error: unknown) =>
        this.fail(call, new CodeRunError('unavailable', `the Python sandbox failed: ${String(error)}`)),
      );
    });
  }

  run(request: CodeRunRequest): Promise<CodeRunResult> {
    if (this.disposed) return Promise.reject(new CodeRunError('unavailable', 'the Python sandbox is shut down'));
    const { signal, owner = '', ...plain } = request;
    if (signal?.aborted) return Promise.reject(new CodeRunError('cancelled', 'code run was cancelled'));
    return new Promise<CodeRunResult>((resolve, reject) => {
      const call: Call = {
        id: this.nextId++,
        owner,
        request: plain,
        queuedAt: performance.now(),
        queueMs: 0,
        timer: undefined,
        worker: undefined,
        base: undefined,
        capped: false,
        settled: false,
        resolve,
        reject,
      };
      this.calls.set(call.id, call);
      signal?.addEventListener('abort', () => this.cancel(call), { once: true });
      call.timer = setTimeout(() => {
        if (!this.slots.remove(call.owner, call)) return;
        const message = `no Python sandbox became free within ${this.options.maxQueueMs} ms; too many Python calls are running`;
        this.settle(call, () => call.reject(new CodeRunError('busy', message)));
      }, this.options.maxQueueMs);
      this.slots.enqueue(call.owner, call);
    });
  }

  /** Null when the code parses and defines main(args); otherwise the problem, with its line. */
  async check(code: string): Promise<{ line: number | null; message: string } | null> {
    const worker = this.processes.find((candidate) => !candidate.call) ?? this.processes[0] ?? this.spawn();
    if (!(await worker.ready)) return { line: null, message: 'the Python sandbox could not start' };
    worker.setActive(true);
    try {
      return await worker.check(this.nextId++, code);
    } finally {
      worker.setActive(Boolean(worker.call));
    }
  }

  dispose(): void {
    this.disposed = true;
    this.processes.forEach((worker) => worker.kill());
    this.processes = [];
    this.slots.drain();
    [...this.calls.values()].forEach((call) =>
      this.settle(call, () => call.reject(new CodeRunError('unavailable', 'the Python sandbox is shut down'))),
    );
  }

  private async start(call: Call): Promise<void> {
    clearTimeout(call.timer);
    call.queueMs = performance.now() - call.queuedAt;
    const worker = this.processFor(call.owner);
    worker.owner = call.owner;
    worker.call = call;
    call.worker = worker;
    worker.setActive(true);
    const started = await Promise.race([
      worker.ready,
      new Promise<false>((r) => setTimeout(r, START_TIMEOUT_MS, false)),
    ]);
    if (call.settled) return;
    if (!started) {
      this.fail(call, new CodeRunError('unavailable', 'the Python sandbox could not start'));
      return;
    }
    worker.lastUsed = performance.now();
    const pid = worker.runtimePid;
    call.capped = pid !== undefined && (await capDataGrowth(pid, call.request.memoryMb));
    if (call.settled) return;
    call.base = worker.usage();
    worker.send({ type: 'run', id: call.id, code: call.request.code, args: JSON.stringify(call.request.args) });
    this.watch(call, worker);
  }

  /** Polls the process's CPU time and memory while the call runs; past a limit, the process goes. */
  private watch(call: Call, worker: PythonProcess): void {
    const { timeoutMs, memoryMb } = call.request;
    const wallStart = performance.now();
    call.timer = setInterval(() => {
      const usage = worker.usage();
      call.base ??= usage;
      const base = call.base;
      if (usage && base && usage.cpuMs - base.cpuMs > timeoutMs) {
        this.fail(call, new CodeRunError('cpu_time', `code exceeded its CPU time limit of ${timeoutMs} ms`));
      } else if (!call.capped && usage && base && usage.rssBytes - base.rssBytes > memoryMb * MIB) {
        this.fail(call, new CodeRunError('memory', `code exceeded its memory limit of ${memoryMb} MiB`));
      } else if (performance.now() - wallStart > wallTimeLimitMs(timeoutMs)) {
        const limit = wallTimeLimitMs(timeoutMs);
        this.fail(call, new CodeRunError('wall_time', `code exceeded its wall-clock limit of ${limit} ms`));
      }
    }, POLL_MS);
  }

  private onMessage(worker: PythonProcess, message: ChildMessage): void {
    if (message.type !== 'done') return;
    const call = worker.call;
    if (!call || call.id !== message.id) return;
    const cpuMs = cpuUsed(call) ?? message.durationMs;
    this.release(worker);
    this.settle(call, () => {
      try {
        const state = { outcome: message.outcome, logs: message.logs, droppedLogs: 0 };
        if (call.capped && message.outcome.status === 'threw' && /^MemoryError\b/m.test(message.outcome.message)) {
          const limit = `code exceeded its memory limit of ${call.request.memoryMb} MiB (Python raised MemoryError)`;
          throw new CodeRunError('memory', limit, message.logs);
        }
        const { json, logs, durationMs } = settleOutcome(state, call.request, message.durationMs, cpuMs);
        call.resolve({ value: parseJsonWithin(json), logs, durationMs, cpuMs, queueMs: call.queueMs });
      } catch (error) {
        const failure =
          error instanceof CodeRunError ? error : new CodeRunError('not_json', 'code returned malformed JSON');
        call.reject(failure.withCpu(cpuMs));
      }
    });
  }

  private onExit(worker: PythonProcess, how: string): void {
    this.processes = this.processes.filter((candidate) => candidate !== worker);
    const call = worker.call;
    if (call && !call.settled) {
      this.fail(call, new CodeRunError('crashed', `the Python sandbox stopped while this call ran (${how})`));
    }
  }

  private cancel(call: Call): void {
    if (this.slots.remove(call.owner, call)) {
      this.settle(call, () => call.reject(new CodeRunError('cancelled', 'code run was cancelled')));
    } else if (call.worker) {
      this.fail(call, new CodeRunError('cancelled', 'code run was cancelled'));
    }
  }

  /** Ends a running call with `error` and replaces its process: the code may still be running there. */
  private fail(call: Call, error: CodeRunError): void {
    const worker = call.worker;
    const failure = error.withCpu(cpuUsed(call));
    if (worker) {
      this.processes = this.processes.filter((candidate) => candidate !== worker);
      worker.call = undefined;
      worker.kill();
    }
    this.settle(call, () => call.reject(failure));
  }

  private release(worker: PythonProcess): void {
    worker.call = undefined;
    worker.setActive(false);
  }

  private settle(call: Call, finish: () => void): void {
    if (call.settled) return;
    call.settled = true;
    this.calls.delete(call.id);
    clearTimeout(call.timer);
    clearInterval(call.timer);
    if (call.worker) this.slots.release(call.owner);
    finish();
  }

  /** An idle process of this owner, else a fresh one, else the idle process used longest ago, restarted. */
  private processFor(owner: string): PythonProcess {
    const idle = this.processes.filter((worker) => !worker.call);
    const own = idle.find((worker) => worker.owner === owner);
    if (own) return own;
    const fresh = idle.find((worker) => worker.owner === undefined);
    if (fresh) return fresh;
    if (this.processes.length < this.options.processes) return this.spawn();
    const oldest = idle.reduce((best, worker) => (worker.lastUsed < best.lastUsed ? worker : best));
    this.processes = this.processes.filter((worker) => worker !== oldest);
    oldest.kill();
    return this.spawn();
  }

  private spawn(): PythonProcess {
    const worker = new PythonProcess(
      this.options.isolation,
      (from, message) => this.onMessage(from, message),
      (from, how) => this.onExit(from, how),
      this.options.logger,
    );
    this.processes.push(worker);
    return worker;
  }
}
