import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { createConnection } from 'mysql2/promise';
import { freePort } from '../test/support/free-port';

/** A database or Redis server of a bench's own: its counters and CPU are that bench's alone. */
export interface PrivateServer {
  url: string;
  pid: number;
  stop(): void;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `child` failed to start within `ms` (not installed, or it exited). */
function failsToStart(child: ChildProcess, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    child.once('error', () => resolve(true));
    child.once('exit', () => resolve(true));
    setTimeout(() => resolve(false), ms);
  });
}

/** A redis-server without persistence; null if none is installed. */
export async function privateRedis(): Promise<PrivateServer | null> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  if ((await failsToStart(child, 300)) || child.pid === undefined) return null;
  const url = `redis://127.0.0.1:${port}`;
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 3 });
  await redis.connect();
  redis.disconnect();
  return { url, pid: child.pid, stop: () => child.kill() };
}

/**
 * A mariadbd on a fresh data directory (root without a password, the settings of the test server), for
 * `BENCH_PRIVATE_MARIADB=1`; null if mariadbd or mariadb-install-db is not installed or it does not start.
 */
export async function privateMariadb(): Promise<PrivateServer | null> {
  const dir = mkdtempSync(join(tmpdir(), 'toolflow-bench-mariadb-'));
  const data = join(dir, 'data');
  try {
    await promisify(execFile)('mariadb-install-db', [
      '--no-defaults',
      `--datadir=${data}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      ...(process.getuid?.() === 0 ? ['--user=root'] : []),
    ]);
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  const port = await freePort();
  const child = spawn(
    'mariadbd',
    [
      '--no-defaults',
      `--datadir=${data}`,
      `--socket=${join(dir, 'mysqld.sock')}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      ...(process.getuid?.() === 0 ? ['--user=root'] : []),
      '--character-set-server=utf8mb4',
      '--collation-server=utf8mb4_unicode_ci',
      '--innodb-flush-log-at-trx-commit=2',
      '--max-connections=500',
    ],
    { stdio: 'ignore' },
  );
  const stop = () => {
    child.kill();
    void new Promise((resolve) => child.once('exit', resolve)).then(() =>
      rmSync(dir, { recursive: true, force: true }),
    );
  };
  const url = `mysql://root@127.0.0.1:${port}/mysql`;
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (child.exitCode !== null || child.pid === undefined) break;
    const ready = await createConnection(url).then(
      (connection) => connection.end().then(() => true),
      () => false,
    );
    if (ready) return { url, pid: child.pid, stop };
    await pause(200);
  }
  stop();
  return null;
}
