import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createConnection } from 'mysql2/promise';
import { type ChildApp, startChildApp, stopChildApp } from '../test/support/child-app';
import type { OpenAITestServer } from '../test/support/openai-test-server';
import { ADMIN_KEY } from '../test/support/test-app';
import { throwawayMysqlDatabase } from '../test/support/throwaway-mysql';
import type { ToolBackend } from '../test/support/tool-backend';
import { llmEnv } from '../test/support/workflow-fixtures';
import { processCpuMs } from './client-cost.bench';
import { benchSize } from './bench-size';
import { median } from './median';
import { type PrivateServer, privateMariadb, privateRedis } from './private-servers';
import {
  ANSWER,
  benchMysqlUrl,
  installToolRound,
  percentile,
  redisCommands,
  runBench,
  serverQuestions,
  startQueueProcesses,
  toolRoundTurn,
  withModelAndBackend,
} from './tool-round';

/**
 * Throughput (issue 25): runs of one tool round each (model → one http tool call → model → answer) against a
 * scripted model that answers at once, posted `?wait=true` by C clients that each post again when their run
 * ends. Embedded mode on SQLite at 32 and 64 clients (one process, 64 run slots), and queue mode with 1 api + 1
 * worker on MariaDB + Redis at 64. Completed runs/s, p50/p99 from POST to the answer (the run's end), the
 * service processes' CPU per run (/proc), and in queue mode SQL statements (the server's `Questions`) and Redis
 * commands per run, on a private redis-server when one is installed, with its CPU per run and the api's and the
 * worker's apart. `BENCH_PRIVATE_MARIADB=1`: on a private mariadbd too (a fresh data directory; its CPU per run,
 * and statements of this bench alone). `BENCH_THROUGHPUT_RUNS` (default 1000)
 * runs per scenario after 100 to warm up; `BENCH_THROUGHPUT_MODES=embedded` or `queue` runs one mode only. `node -r @swc-node/register bench/throughput.bench.ts`
 */
const RUNS = benchSize('BENCH_THROUGHPUT_RUNS', 1000, 300);
/** `embedded`, `queue` or both (the default), comma-separated. */
const MODES = (process.env.BENCH_THROUGHPUT_MODES ?? 'embedded,queue').split(',');
const WARM_UP = 100;
const SLOTS = 64;

interface Deployment {
  processes: ChildApp[];
  /** Where runs are posted. */
  api: ChildApp;
  /** SQL statements the database server has answered so far (MariaDB only). */
  questions?: () => Promise<number>;
  redisUrl?: string;
  /** Server processes of the bench's own whose CPU counts too, by name. */
  servers: Record<string, number>;
  close(): Promise<void>;
}

async function embeddedSqlite(llm: OpenAITestServer): Promise<Deployment> {
  const dir = mkdtempSync(join(tmpdir(), 'toolflow-throughput-'));
  const api = await startChildApp(
    llmEnv(llm, {
      DATABASE_URL: `sqlite:${join(dir, 'bench.sqlite')}`,
      LOG_LEVEL: 'error',
      MAX_CONCURRENT_RUNS: String(SLOTS),
      MAX_QUEUED_RUNS: '1000000',
    }),
  );
  return {
    processes: [api],
    api,
    servers: {},
    close: async () => {
      await stopChildApp(api, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function queueMariadb(
  llm: OpenAITestServer,
  mysqlUrl: string,
  redisUrl: string,
  servers: Record<string, number>,
): Promise<Deployment> {
  const database = await throwawayMysqlDatabase(mysqlUrl, 'tf_bench');
  const sql = await createConnection(database.url);
  const env = (role: 'api' | 'worker') =>
    llmEnv(llm, {
      DATABASE_URL: database.url,
      LOG_LEVEL: 'error',
      MAX_CONCURRENT_RUNS: String(SLOTS),
      MAX_QUEUED_RUNS: '1000000',
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: 'tf-throughput',
      ROLE: role,
    });
  const [api, worker] = await startQueueProcesses(env, 1);
  return {
    processes: [api, worker],
    api,
    questions: () => serverQuestions(sql),
    redisUrl,
    servers,
    close: async () => {
      await Promise.all([stopChildApp(worker, 'SIGTERM'), stopChildApp(api, 'SIGTERM')]);
      await sql.end();
      await database.drop();
    },
  };
}

async function measure(
  deployment: Deployment,
  clients: number,
  llm: OpenAITestServer,
  backend: ToolBackend,
): Promise<Record<string, number>> {
  const { api } = deployment;
  const headers = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
  const post = (path: string, body: unknown) =>
    fetch(`${api.url}/api/v1${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const workflowId = await installToolRound(api.url, backend, 'throughput');
  llm.reset();
  llm.script(Array.from({ length: 2 * (RUNS + WARM_UP + clients) }, toolRoundTurn()));

  /** Runs `count` runs with `clients` posting at once; each run's POST → answer time, in ms. */
  const drive = async (count: number): Promise<number[]> => {
    const latencies: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (next < count) {
          next += 1;
          const start = performance.now();
          const response = await post(`/workflows/${workflowId}/runs?wait=true`, { inputs: { question: 'Go.' } });
          const body = (await response.json()) as { status?: string; outputs?: { answer?: string } };
          if (body.outputs?.answer !== ANSWER) throw new Error(`run: ${response.status} ${JSON.stringify(body)}`);
          latencies.push(performance.now() - start);
        }
      }),
    );
    return latencies;
  };
  await drive(WARM_UP);
  process.stderr.write(`throughput: warmed up at ${clients} clients\n`);
  const cpuOf = () => deployment.processes.map((child) => processCpuMs(child.process.pid!));
  const serversCpuOf = () => Object.values(deployment.servers).map((pid) => processCpuMs(pid));
  const questionsBefore = await deployment.questions?.();
  const redisBefore = deployment.redisUrl ? await redisCommands(deployment.redisUrl) : 0;
  const cpuBefore = cpuOf();
  const serversCpuBefore = serversCpuOf();
  const started = performance.now();
  const latencies = await drive(RUNS);
  const seconds = (performance.now() - started) / 1000;
  const cpuByProcess = cpuOf().map((ms, index) => ms - cpuBefore[index]);
  const serversCpu = serversCpuOf().map((ms, index) => ms - serversCpuBefore[index]);
  const cpuMs = cpuByProcess.reduce((sum, ms) => sum + ms, 0);
  const questionsAfter = await deployment.questions?.();
  const redisAfter = deployment.redisUrl ? await redisCommands(deployment.redisUrl) : 0;
  const round = (value: number) => Math.round(value * 10) / 10;
  return {
    runs: RUNS,
    'completed runs/s': round(RUNS / seconds),
    'p50 POST→end (ms)': round(median(latencies)),
    'p99 POST→end (ms)': round(percentile(latencies, 99)),
    'service CPU ms/run': round(cpuMs / RUNS),
    ...(cpuByProcess.length > 1
      ? Object.fromEntries(
          cpuByProcess.map((ms, index) => [`${index === 0 ? 'api' : `worker ${index}`} CPU ms/run`, round(ms / RUNS)]),
        )
      : {}),
    ...Object.fromEntries(
      Object.keys(deployment.servers).map((name, index) => [`${name} CPU ms/run`, round(serversCpu[index] / RUNS)]),
    ),
    ...(questionsBefore !== undefined && questionsAfter !== undefined
      ? { 'SQL statements/run': round((questionsAfter - questionsBefore - 1) / RUNS) }
      : {}),
    ...(deployment.redisUrl ? { 'Redis commands/run': round((redisAfter - redisBefore - 1) / RUNS) } : {}),
  };
}

/** Throughput per scenario; queue mode is skipped without a MySQL/MariaDB URL or without Redis. */
export function benchThroughput(): Promise<Record<string, Record<string, number>>> {
  return withModelAndBackend(async (llm, backend) => {
    const results: Record<string, Record<string, number>> = {};
    for (const clients of MODES.includes('embedded') ? [32, 64] : []) {
      const deployment = await embeddedSqlite(llm);
      try {
        results[`embedded SQLite, ${clients} clients`] = await measure(deployment, clients, llm, backend);
      } finally {
        await deployment.close();
      }
    }
    if (!MODES.includes('queue')) return results;
    const mariadb = process.env.BENCH_PRIVATE_MARIADB === '1' ? await privateMariadb() : null;
    const mysqlUrl = mariadb?.url ?? benchMysqlUrl();
    const redis = mysqlUrl ? await privateRedis() : null;
    const redisUrl = redis?.url ?? process.env.TEST_REDIS_URL;
    if (!mysqlUrl || !redisUrl) {
      mariadb?.stop();
      console.log('\nthroughput, queue mode: skipped (needs a MySQL/MariaDB URL and redis-server or TEST_REDIS_URL)');
      return results;
    }
    const servers = (named: Record<string, PrivateServer | null>) =>
      Object.fromEntries(Object.entries(named).flatMap(([name, server]) => (server ? [[name, server.pid]] : [])));
    try {
      const deployment = await queueMariadb(
        llm,
        mysqlUrl,
        redisUrl,
        servers({ mariadbd: mariadb, 'redis-server': redis }),
      );
      try {
        const label = `queue 1 api + 1 worker, ${mariadb ? 'private ' : ''}MariaDB + ${redis ? 'private ' : 'shared '}Redis, 64 clients`;
        results[label] = await measure(deployment, 64, llm, backend);
      } finally {
        await deployment.close();
      }
    } finally {
      redis?.stop();
      mariadb?.stop();
    }
    return results;
  });
}

if (require.main === module) runBench(benchThroughput);
