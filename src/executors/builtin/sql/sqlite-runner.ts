import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { ToolExecutionError, ToolForbiddenError } from '../../../shared/tool-errors';
import { queryTimeoutError, type QueryResult, type ReadOnlyQueryOptions } from './query-result';
import { isSqliteProcessMessage, type SqliteProcessMessage, type SqliteQueryRequest } from './sqlite-protocol';

/** Idle query processes kept per file; busy ones are not capped (the tool-call limits bound them). */
const MAX_IDLE_PROCESSES = 2;

/**
 * Runs SQLite queries off the event loop, each in a child process that is killed at the time
 * limit or on abort. better-sqlite3 is synchronous and SQLite cannot be interrupted from a worker
 * thread (terminate() waits for the native step forever), so a process is the unit that can stop.
 */
export class SqliteRunner {
  private readonly idle: ChildProcess[] = [];
  private readonly running = new Set<ChildProcess>();

  constructor(private readonly file: string) {}

  async run(sql: string, params: readonly unknown[], options: ReadOnlyQueryOptions): Promise<QueryResult> {
    const child = this.takeIdle() ?? (await this.start(options.signal));
    this.running.add(child);
    const request: SqliteQueryRequest = { sql, params: [...params], rowLimit: options.rowLimit };
    const reply = this.next(child, options.signal, options.timeoutMs);
    child.send(request);
    const message = await reply;
    this.release(child);
    if (message.type === 'result') return message.result;
    if (message.type === 'failed') {
      throw message.forbidden ? new ToolForbiddenError(message.message) : new ToolExecutionError(message.message);
    }
    throw new ToolExecutionError(`the SQLite query process answered out of turn (${message.type})`);
  }

  /**
   * Kills every query process, idle or busy (their queries fail); resolves once they have exited and their pipes closed, so that a
   * process that closes its runners and then ends is not held up by a child still on its way out.
   */
  async close(): Promise<void> {
    const children = [...this.idle, ...this.running];
    this.idle.length = 0;
    this.running.clear();
    await Promise.all(
      children.map((child) => {
        const exited =
          child.exitCode !== null || child.signalCode !== null
            ? Promise.resolve()
            : new Promise<void>((resolve) => child.once('close', () => resolve()));
        child.kill('SIGKILL');
        return exited;
      }),
    );
  }

  private async start(signal: AbortSignal | undefined): Promise<ChildProcess> {
    // From TypeScript sources (tests) the child needs the same transpiler hook.
    const entry = path.join(__dirname, `sqlite-query-process${path.extname(__filename)}`);
    const child = fork(entry, [this.file], {
      execArgv: entry.endsWith('.ts') ? ['-r', '@swc-node/register'] : [],
      serialization: 'json',
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    child.once('exit', () => this.kill(child));
    this.running.add(child);
    const message = await this.next(child, signal, null);
    if (message.type === 'ready') return child;
    this.kill(child);
    throw new ToolExecutionError(
      message.type === 'open-failed'
        ? `cannot open the query database: ${message.message}`
        : 'the SQLite query process did not start',
    );
  }

  /** The child's next message; on the time limit, an abort or an exit the child is killed and this rejects. */
  private next(
    child: ChildProcess,
    signal: AbortSignal | undefined,
    timeoutMs: number | null,
  ): Promise<SqliteProcessMessage> {
    return new Promise((resolve, reject) => {
      const cleanUp = (): void => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        child.off('error', onError);
        signal?.removeEventListener('abort', onAbort);
      };
      const fail = (error: Error): void => {
        cleanUp();
        this.kill(child);
        reject(error);
      };
      const onMessage = (message: unknown): void => {
        if (!isSqliteProcessMessage(message)) return;
        cleanUp();
        resolve(message);
      };
      const onExit = (code: number | null, exitSignal: NodeJS.Signals | null): void =>
        fail(new ToolExecutionError(`the SQLite query process stopped (${exitSignal ?? `exit code ${code}`})`));
      const onError = (error: Error): void =>
        fail(new ToolExecutionError(`the SQLite query process failed: ${error.message}`));
      const onAbort = (): void => fail(new ToolExecutionError('the query was cancelled'));
      const timer = timeoutMs === null ? undefined : setTimeout(() => fail(queryTimeoutError(timeoutMs)), timeoutMs);
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.once('error', onError);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) onAbort();
    });
  }

  private release(child: ChildProcess): void {
    this.running.delete(child);
    if (!child.connected || this.idle.length >= MAX_IDLE_PROCESSES) {
      child.kill('SIGKILL');
      return;
    }
    // Idle processes must not keep the service alive at exit; close() ends them on shutdown.
    child.unref();
    child.channel?.unref();
    this.idle.push(child);
  }

  private takeIdle(): ChildProcess | undefined {
    const child = this.idle.pop();
    child?.ref();
    child?.channel?.ref();
    return child;
  }

  private kill(child: ChildProcess): void {
    this.running.delete(child);
    const index = this.idle.indexOf(child);
    if (index >= 0) this.idle.splice(index, 1);
    child.kill('SIGKILL');
  }
}
