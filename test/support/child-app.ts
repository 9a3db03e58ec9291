import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/app-config';
import { databaseOptions } from '../../src/database-options';
import { freePort } from './free-port';
import { ADMIN_KEY } from './test-app';

const ROOT = join(__dirname, '..', '..');
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** ToolFlow started as its own process (src/main.ts through @swc-node/register), for signals and exits. */
export interface ChildApp {
  /** `http://127.0.0.1:<port>` */
  url: string;
  process: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What the process wrote to stderr so far (startup problems, logs at LOG_LEVEL). */
  stderr(): string;
}

/** `nodeArgs` go to node before the script (`--cpu-prof`, which NODE_OPTIONS refuses). */
export async function startChildApp(env: Record<string, string>, nodeArgs: readonly string[] = []): Promise<ChildApp> {
  const port = await freePort();
  const args = [...nodeArgs, '--no-node-snapshot', '-r', '@swc-node/register', 'src/main.ts'];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      ADMIN_API_KEY: ADMIN_KEY,
      HOST: '127.0.0.1',
      PORT: String(port),
      RATE_LIMIT_PER_MINUTE: '1000000',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let running = true;
  void exited.then(() => (running = false));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (!running) throw new Error(`the app exited during start:\n${stderr}`);
    const ready = await fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    await pause(100);
  }
  return { url, process: child, exited, stderr: () => stderr };
}

/** True until the process has exited. */
export const isRunning = (child: ChildApp): boolean =>
  child.process.exitCode === null && child.process.signalCode === null;

/** Sends `signal` (default SIGKILL) unless the process has exited already; resolves with how it exited. */
export async function stopChildApp(
  child: ChildApp,
  signal: NodeJS.Signals = 'SIGKILL',
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (isRunning(child)) child.process.kill(signal);
  return child.exited;
}

/** One REST call (`/api/v1` + `path`) to a child process with the admin key; the answer's JSON body. */
export async function callChildApp<T>(
  target: ChildApp,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${target.url}/api/v1${path}`, {
    method: init.method ?? 'GET',
    headers: { Authorization: `Bearer ${ADMIN_KEY}`, 'Content-Type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** Runs one query on a database directly, without booting the app (whose start would change runs). */
export async function queryDatabase<T>(databaseUrl: string, sql: string, parameters: unknown[] = []): Promise<T[]> {
  const config = loadConfig({ DATABASE_URL: databaseUrl });
  const dataSource = await new DataSource(databaseOptions(config.database, false)).initialize();
  try {
    return await dataSource.query<T[]>(sql, parameters);
  } finally {
    await dataSource.destroy();
  }
}
