import { type ChildProcess, fork } from 'node:child_process';
import { Socket } from 'node:net';
import path from 'node:path';
import type { IsolateSandboxOptions } from './isolate-sandbox';
import { type ChildMessage, type HostMessage, isChildMessage } from './sandbox-protocol';

/** Where the output of a child process goes; V8 writes its fatal-error banner there. */
export interface SandboxLogger {
  debug(message: string): void;
}

export interface SandboxChildEvents {
  onMessage(child: SandboxChild, message: Exclude<ChildMessage, { type: 'ready' }>): void;
  /** Fires once, however the process ended (exit, signal, failed spawn). */
  onExit(child: SandboxChild, how: string): void;
}

const MAX_LOG_LINE_CHARS = 2000;

/** One forked sandbox process (sandbox-process.ts) and the calls it is running. */
export class SandboxChild {
  readonly process: ChildProcess;
  /** Settles once the child listens (or is gone); hang detection must not count its start-up. */
  readonly ready: Promise<void>;
  /** Call ids running here. */
  readonly running = new Set<number>();
  private exited = false;

  constructor(options: IsolateSandboxOptions, events: SandboxChildEvents, logger?: SandboxLogger) {
    // From TypeScript sources (tests, benchmarks) the child needs the same transpiler hook.
    const entry = path.join(__dirname, `sandbox-process${path.extname(__filename)}`);
    const transpile = entry.endsWith('.ts') ? ['-r', '@swc-node/register'] : [];
    this.process = fork(entry, [JSON.stringify(options)], {
      // Node 20's startup snapshot and isolated-vm isolates can crash together; the child does not need it.
      execArgv: ['--no-node-snapshot', ...transpile],
      serialization: 'json',
      // Never the parent's own streams: V8's out-of-memory banner would land in the host's stderr
      // (and kill a Jest worker that owns it).
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const child = this.process;
    this.forwardOutput(logger);
    this.ready = new Promise<void>((resolve) => {
      child.on('message', (message: unknown) => {
        if (!isChildMessage(message)) return;
        if (message.type === 'ready') resolve();
        else events.onMessage(this, message);
      });
      child.once('exit', () => resolve());
    });
    const exit = (how: string): void => {
      if (this.exited) return;
      this.exited = true;
      events.onExit(this, how);
    };
    child.on('exit', (code, signal) => exit(signal ? `signal ${signal}` : `exit code ${code}`));
    // A child that failed to spawn or to receive a message may never emit 'exit'.
    child.on('error', (error) => {
      child.kill('SIGKILL');
      exit(`error: ${error.message}`);
    });
    this.setActive(false);
  }

  get alive(): boolean {
    return !this.exited && this.process.exitCode === null && this.process.signalCode === null;
  }

  send(message: HostMessage): boolean {
    if (!this.process.connected) return false;
    this.process.send(message, (error) => error && this.process.kill('SIGKILL'));
    return true;
  }

  kill(): void {
    this.process.kill('SIGKILL');
  }

  /** An idle child must not keep the host process alive. */
  setActive(active: boolean): void {
    if (active) {
      this.process.ref();
      this.process.channel?.ref();
    } else {
      this.process.unref();
      this.process.channel?.unref();
    }
  }

  private forwardOutput(logger: SandboxLogger | undefined): void {
    const pid = this.process.pid ?? 'unknown';
    for (const stream of [this.process.stdout, this.process.stderr]) {
      if (!stream) continue;
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        const text = chunk.trimEnd();
        if (text) logger?.debug(`code sandbox process ${pid}: ${text.slice(0, MAX_LOG_LINE_CHARS)}`);
      });
      // A pipe keeps the host alive unless unref'd, like the process itself.
      if (stream instanceof Socket) stream.unref();
    }
  }
}
