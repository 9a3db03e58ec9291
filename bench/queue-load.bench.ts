import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createConnection } from 'mysql2/promise';
import { type ChildApp, isRunning, startChildApp, stopChildApp } from '../test/support/child-app';
import type { OpenAITestServer } from '../test/support/openai-test-server';
import { ADMIN_KEY } from '../test/support/test-app';
import { dropRedisPrefix, uniqueRedisPrefix } from '../test/support/test-redis';
import { throwawayMysqlDatabase } from '../test/support/throwaway-mysql';
import type { ToolBackend } from '../test/support/tool-backend';
import { llmEnv } from '../test/support/workflow-fixtures';
import {
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
import { benchSize } from './bench-size';

/**
 * Load test of queue mode (issue 9): N runs of one tool round each (model → one http tool call → model →
 * answer), the scripted model answering after 200 ms, all posted at once to one api process with two
 * workers on MariaDB + Redis; then the same with one worker killed half-way; then embedded mode (one
 * process, same database server, as many run slots in total) for comparison. Every process is a child
 * process started from source. Needs TEST_REDIS_URL and a MySQL/MariaDB URL (TEST_MYSQL_URL or DATABASE_URL);
 * skipped without them. `BENCH_QUEUE_RUNS` sets N (default 1000).
 */
const RUNS = benchSize('BENCH_QUEUE_RUNS', 1000, 200);
const MODEL_LATENCY_MS = 200;
const SLOTS_PER_WORKER = 16;
const LEASE_MS = 5000;
const FINISHED = "('succeeded','failed','cancelled')";

const peakRssMb = (pid: number | undefined): number => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
};

interface Scenario {
  label: string;
  queue: boolean;
  killWorkerHalfWay: boolean;
}

async function runScenario(
  scenario: Scenario,
  mysqlUrl: string,
  redisUrl: string,
  llm: OpenAITestServer,
  backend: ToolBackend,
): Promise<Record<string, number>> {
  const database = await throwawayMysqlDatabase(mysqlUrl, 'tf_bench');
  const prefix = uniqueRedisPrefix();
  const children: ChildApp[] = [];
  const sql = await createConnection(database.url);
  try {
    const env = (extra: Record<string, string>) =>
      llmEnv(llm, {
        DATABASE_URL: database.url,
        LOG_LEVEL: 'error',
        MAX_QUEUED_RUNS: '1000000',
        RUN_LEASE_MS: String(LEASE_MS),
        CODE_SANDBOX_PROCESSES: '1',
        ...extra,
      });
    const queueEnv = { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix, MAX_CONCURRENT_RUNS: String(SLOTS_PER_WORKER) };
    children.push(
      ...(scenario.queue
        ? await startQueueProcesses((role) => env({ ...queueEnv, ROLE: role }), 2)
        : [await startChildApp(env({ MAX_CONCURRENT_RUNS: String(2 * SLOTS_PER_WORKER) }))]),
    );
    const api = children[0];
    const headers = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
    const workflowId = await installToolRound(api.url, backend, 'queue-load');

    llm.reset();
    backend.hits.length = 0;
    // Two model calls per run, and spare ones for calls a killed worker started and its successor repeats.
    llm.script(Array.from({ length: 3 * RUNS }, toolRoundTurn(MODEL_LATENCY_MS)));
    let ownQueries = 0;
    const questions = () => {
      ownQueries += 1;
      return serverQuestions(sql);
    };
    const finishedCount = async () => {
      ownQueries += 1;
      const [rows] = await sql.query(`SELECT COUNT(*) AS n FROM runs WHERE status IN ${FINISHED}`);
      return Number((rows as Array<{ n: number }>)[0].n);
    };
    const questionsBefore = await questions();
    const redisBefore = scenario.queue ? await redisCommands(redisUrl) : 0;

    const postedAt = new Map<string, number>();
    const wallStart = Date.now();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: RUNS }, async (_, index) => {
        const at = Date.now();
        const response = await fetch(`${api.url}/api/v1/workflows/${workflowId}/runs`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ inputs: { question: `Run ${index}` } }),
        });
        if (response.status !== 202) throw new Error(`POST answered ${response.status}: ${await response.text()}`);
        postedAt.set(((await response.json()) as { id: string }).id, at);
      }),
    );
    let killed = false;
    for (;;) {
      const finished = await finishedCount();
      if (finished >= RUNS) break;
      if (scenario.killWorkerHalfWay && !killed && finished >= RUNS / 2) {
        await stopChildApp(children[1]);
        killed = true;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const elapsedSeconds = (performance.now() - started) / 1000;
    const questionsAfter = await questions();
    const redisAfter = scenario.queue ? await redisCommands(redisUrl) : 0;

    ownQueries += 1;
    const [rows] = await sql.query('SELECT id, status, finished_at FROM runs WHERE parent_run_id IS NULL');
    const runs = rows as Array<{ id: string; status: string; finished_at: Date }>;
    const latencies = runs.map((run) => new Date(run.finished_at).getTime() - (postedAt.get(run.id) ?? wallStart));
    const succeeded = runs.filter((run) => run.status === 'succeeded').length;
    ownQueries += 1;
    // A run executed twice would end twice: its log would hold two run.finished events.
    const [finishedTwice] = await sql.query(
      "SELECT run_id FROM run_events WHERE type = 'run.finished' GROUP BY run_id HAVING COUNT(*) > 1",
    );
    const rss: Record<string, number> = {};
    const roles = scenario.queue ? ['api', 'worker 1', 'worker 2'] : ['embedded'];
    children.forEach((child, index) => {
      if (isRunning(child)) rss[`peak RSS ${roles[index]} (MB)`] = peakRssMb(child.process.pid);
    });
    return {
      runs: RUNS,
      succeeded,
      'runs ended twice': (finishedTwice as unknown[]).length,
      // Beyond 2 and 1 per run: calls in flight on the killed worker, made again by the one that took over.
      'model calls': llm.requests.length,
      'tool calls': backend.hits.length,
      'completed runs/s': Math.round((RUNS / elapsedSeconds) * 10) / 10,
      'p50 POST→run.finished (ms)': percentile(latencies, 50),
      'p99 POST→run.finished (ms)': percentile(latencies, 99),
      ...rss,
      'SQL statements/run (server-wide)':
        Math.round(((questionsAfter - questionsBefore - ownQueries) / RUNS) * 10) / 10,
      ...(scenario.queue
        ? { 'Redis commands/run': Math.round(((redisAfter - redisBefore - 1) / RUNS) * 10) / 10 }
        : {}),
    };
  } finally {
    for (const child of children) await stopChildApp(child);
    await sql.end();
    await database.drop();
    if (scenario.queue) await dropRedisPrefix(redisUrl, prefix);
  }
}

/** The load test's figures per scenario; empty (skipped) without Redis and MariaDB. */
export async function benchQueueLoad(): Promise<Record<string, Record<string, number>>> {
  const redisUrl = process.env.TEST_REDIS_URL;
  const mysqlUrl = benchMysqlUrl();
  if (!redisUrl || !mysqlUrl) {
    console.log('\nqueue load: skipped (set TEST_REDIS_URL and TEST_MYSQL_URL or a mysql DATABASE_URL)');
    return {};
  }
  const scenarios: Scenario[] = [
    { label: 'queue: 1 api + 2 workers', queue: true, killWorkerHalfWay: false },
    { label: 'queue: worker 1 killed half-way', queue: true, killWorkerHalfWay: true },
    { label: 'embedded: 1 process', queue: false, killWorkerHalfWay: false },
  ];
  return withModelAndBackend(async (llm, backend) => {
    const results: Record<string, Record<string, number>> = {};
    for (const scenario of scenarios) {
      results[scenario.label] = await runScenario(scenario, mysqlUrl, redisUrl, llm, backend);
    }
    return results;
  });
}

if (require.main === module) runBench(benchQueueLoad);
