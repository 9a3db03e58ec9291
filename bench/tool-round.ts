import { Redis } from 'ioredis';
import type { Connection } from 'mysql2/promise';
import { type ChildApp, startChildApp, stopChildApp } from '../test/support/child-app';
import { OpenAITestServer, reply, type RecordedRequest, type Turn } from '../test/support/openai-test-server';
import { ADMIN_KEY } from '../test/support/test-app';
import { startToolBackend, type ToolBackend } from '../test/support/tool-backend';
import { httpToolBody } from '../test/support/workflow-fixtures';

/**
 * What the load benches (throughput, soak, queue load) share: a workflow of one tool round (model → one http tool
 * call → model → answer), the scripted model and tool backend it runs against, the service processes they start,
 * and the server counters they read.
 */

export const ANSWER = 'Done.';

const pingParameters = {
  type: 'object',
  properties: { id: { type: 'string' } },
  required: ['id'],
  additionalProperties: false,
};

/** The one-tool-round workflow, named `name`. */
export const toolRoundWorkflow = (name: string) => ({
  name,
  inputs: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] },
  nodes: [
    { id: 'start', type: 'start', data: {} },
    { id: 'agent', type: 'llm', data: { prompt: '{{inputs.question}}', tools: ['ping'], max_iterations: 4 } },
    { id: 'end', type: 'end', data: { outputs: { answer: '{{agent.output}}' } } },
  ],
  edges: [
    { source: 'start', target: 'agent' },
    { source: 'agent', target: 'end' },
  ],
});

/** A model turn that calls the tool first and answers once the conversation holds its result, after `delayMs`. */
export const toolRoundTurn = (delayMs?: number) => (): Turn =>
  reply.from((request: RecordedRequest) => {
    const options = delayMs === undefined ? {} : { delayMs };
    const messages = request.body.messages as Array<{ role: string }>;
    if (messages.at(-1)?.role === 'tool') return reply.text(ANSWER, options);
    return reply.toolCalls([{ name: 'ping', id: 'call_1', arguments: { id: 'x' } }], options);
  });

/** Creates the `ping` tool (on `backend`) and the workflow `name` through the API at `apiUrl`; the workflow's id. */
export async function installToolRound(apiUrl: string, backend: ToolBackend, name: string): Promise<string> {
  const headers = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
  const post = (path: string, body: unknown) =>
    fetch(`${apiUrl}/api/v1${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const tool = await post(
    '/tools',
    httpToolBody('ping', `${backend.origin}/ping?id={id}`, { parameters: pingParameters }),
  );
  if (tool.status !== 201) throw new Error(`creating the tool failed: ${await tool.text()}`);
  return ((await (await post('/workflows', toolRoundWorkflow(name))).json()) as { id: string }).id;
}

/** Runs `bench` with a scripted model and a tool backend, both closed after it. */
export async function withModelAndBackend<T>(
  bench: (llm: OpenAITestServer, backend: ToolBackend) => Promise<T>,
): Promise<T> {
  const llm = await OpenAITestServer.start();
  const backend = await startToolBackend();
  try {
    return await bench(llm, backend);
  } finally {
    await llm.close();
    await backend.close();
  }
}

/**
 * Starts the service processes of queue mode: the api first (it migrates the schema, so that the workers start on a
 * ready one), then `workers` workers at once; `env(role)` is each process's environment. When one fails to start,
 * those that did are stopped.
 */
export async function startQueueProcesses(
  env: (role: 'api' | 'worker') => Record<string, string>,
  workers: number,
): Promise<ChildApp[]> {
  const api = await startChildApp(env('api'));
  const started = await Promise.allSettled(Array.from({ length: workers }, () => startChildApp(env('worker'))));
  const processes = [api, ...started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []))];
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    await Promise.all(processes.map((child) => stopChildApp(child)));
    throw failed.reason;
  }
  return processes;
}

/** The MySQL/MariaDB server the benches use (TEST_MYSQL_URL, or a mysql DATABASE_URL); undefined: none. */
export const benchMysqlUrl = (): string | undefined =>
  [process.env.TEST_MYSQL_URL, process.env.DATABASE_URL].find((url) => url && /^(mysql|mariadb):/.test(url));

/** SQL statements the database server has answered so far (its `Questions` counter; this query counts too). */
export async function serverQuestions(sql: Connection): Promise<number> {
  const [rows] = await sql.query("SHOW GLOBAL STATUS LIKE 'Questions'");
  return Number((rows as Array<{ Value: string }>)[0].Value);
}

/** Commands the Redis server has answered so far (`INFO commandstats`). */
export async function redisCommands(url: string): Promise<number> {
  const redis = new Redis(url);
  try {
    const info = await redis.info('commandstats');
    return [...info.matchAll(/calls=(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
  } finally {
    redis.disconnect();
  }
}

/** The value below which `p` percent of `values` fall (nearest rank). */
export const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

/** The `if (require.main === module)` body of a bench: prints its table, or its error with a failing exit code. */
export function runBench(bench: () => Promise<Record<string, Record<string, number>>>): void {
  bench().then(
    (results) => console.table(results),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
