import OpenAI from 'openai';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { OpenAITestServer, reply, type Turn } from '../test/support/openai-test-server';
import { countStatements } from '../test/support/statement-counter';
import { ADMIN_KEY, startTestApp, type TestApp } from '../test/support/test-app';
import { throwawayMysqlDatabase } from '../test/support/throwaway-mysql';
import { startToolBackend, type ToolBackend } from '../test/support/tool-backend';
import { httpToolBody, llmEnv } from '../test/support/workflow-fixtures';
import { bareOpenAILoop } from './bare-openai-loop';
import { benchSize } from './bench-size';
import { median } from './median';

export const ROUNDS = 3;
export const CALLS_PER_ROUND = 3;
export const MODEL_CALLS = ROUNDS + 1;
/** Alternated repetitions per side (BENCH_COST_REPETITIONS; quick mode 10). */
export const REPETITIONS = benchSize('BENCH_COST_REPETITIONS', 30, 10);
export const ANSWER = 'All three rounds done.';

export const pingParameters = {
  type: 'object',
  properties: { id: { type: 'string' } },
  required: ['id'],
  additionalProperties: false,
};

/** 3 model turns of 3 parallel calls of `ping` (distinct ids), then the answer. */
export const conversation = (): Turn[] => [
  ...Array.from({ length: ROUNDS }, (_, round) =>
    reply.toolCalls(
      Array.from({ length: CALLS_PER_ROUND }, (__, call) => ({
        name: 'ping',
        id: `call_${round}_${call}`,
        arguments: { id: `r${round}c${call}` },
      })),
    ),
  ),
  reply.text(ANSWER),
];

export const definition = {
  name: 'run-cost',
  inputs: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] },
  nodes: [
    { id: 'start', type: 'start', data: {} },
    { id: 'agent', type: 'llm', data: { prompt: '{{inputs.question}}', tools: ['ping'], max_iterations: 10 } },
    { id: 'end', type: 'end', data: { outputs: { answer: '{{agent.output}}' } } },
  ],
  edges: [
    { source: 'start', target: 'agent' },
    { source: 'agent', target: 'end' },
  ],
};

/** What one would write by hand with the SDK: stream, assemble the calls, GET each in parallel, repeat. */
const pingTool: ChatCompletionTool = {
  type: 'function',
  function: { name: 'ping', description: 'Test tool ping', parameters: pingParameters },
};

/** The same http tool call the REST run makes, done by hand. */
const ping = (backend: ToolBackend) => async (args: Record<string, unknown>) => {
  const response = await fetch(`${backend.origin}/ping?id=${encodeURIComponent(String(args.id))}`);
  return response.text();
};

export interface Database {
  label: string;
  /** A database URL for startTestApp, and how to remove it afterwards. */
  create(): Promise<{ url: string; drop: () => Promise<void> }>;
}

export const sqlite: Database = {
  label: 'sqlite',
  create: () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolflow-bench-'));
    return Promise.resolve({
      url: `sqlite:${join(dir, 'bench.sqlite')}`,
      drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
    });
  },
};

export const mysql = (url: string): Database => ({
  label: 'mariadb',
  create: () => throwawayMysqlDatabase(url, 'tf_bench'),
});

async function restRun(baseUrl: string, workflowId: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/v1/workflows/${workflowId}/runs?wait=true`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ inputs: { question: 'Go.' } }),
  });
  const body = (await response.json()) as { status?: string; outputs?: { answer?: string } };
  if (body.status !== 'succeeded') throw new Error(`run did not succeed: ${JSON.stringify(body)}`);
  return body.outputs?.answer ?? '';
}

async function benchOn(database: Database): Promise<Record<string, number>> {
  const llm = await OpenAITestServer.start();
  const backend = await startToolBackend();
  const data = await database.create();
  let app: TestApp | undefined;
  try {
    app = await startTestApp(llmEnv(llm, { LOG_LEVEL: 'silent' }), { databaseUrl: data.url });
    const server = app.app.getHttpServer() as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const baseUrl = `http://127.0.0.1:${port}`;
    const headers = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
    const tool = await fetch(`${baseUrl}/api/v1/tools`, {
      method: 'POST',
      headers,
      body: JSON.stringify(httpToolBody('ping', `${backend.origin}/ping?id={id}`, { parameters: pingParameters })),
    });
    if (tool.status !== 201) throw new Error(`creating the tool failed: ${await tool.text()}`);
    const workflow = await fetch(`${baseUrl}/api/v1/workflows`, {
      method: 'POST',
      headers,
      body: JSON.stringify(definition),
    });
    const workflowId = ((await workflow.json()) as { id: string }).id;

    const client = new OpenAI({ baseURL: llm.baseUrl, apiKey: 'bench', maxRetries: 0 });
    const counter = countStatements(app.app.get(DataSource));
    const timed = async (run: () => Promise<string>): Promise<number> => {
      llm.reset();
      llm.script(conversation());
      const start = performance.now();
      const output = await run();
      const elapsed = performance.now() - start;
      if (output !== ANSWER) throw new Error(`unexpected final answer: ${output}`);
      return elapsed / MODEL_CALLS;
    };
    const rest = () => restRun(baseUrl, workflowId);
    const bare = () => bareOpenAILoop(client, 'test-model', [pingTool], ping(backend));
    for (let warmUp = 0; warmUp < 3; warmUp++) {
      await timed(rest);
      await timed(bare);
    }
    // Runs finished moments ago may still flush; let them settle before counting one run alone.
    await new Promise((resolve) => setTimeout(resolve, 200));
    counter.reset();
    await timed(rest);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const statementsPerRun = counter.count();
    counter.stop();

    const restTimes: number[] = [];
    const bareTimes: number[] = [];
    for (let repetition = 0; repetition < REPETITIONS; repetition++) {
      // Alternating keeps slow drift (GC, JIT, sockets) from favouring either side.
      if (repetition % 2 === 0) {
        restTimes.push(await timed(rest));
        bareTimes.push(await timed(bare));
      } else {
        bareTimes.push(await timed(bare));
        restTimes.push(await timed(rest));
      }
    }
    const restMs = median(restTimes);
    const bareMs = median(bareTimes);
    const round = (value: number) => Math.round(value * 1000) / 1000;
    return {
      rest_ms_per_llm_call: round(restMs),
      bare_sdk_ms_per_llm_call: round(bareMs),
      ratio_per_llm_call: round(restMs / bareMs),
      sql_statements_per_run: statementsPerRun,
    };
  } finally {
    await app?.close();
    await data.drop();
    await llm.close();
    await backend.close();
  }
}

/** SQLite, and MariaDB when DATABASE_URL or TEST_MYSQL_URL names a MySQL/MariaDB server. */
export function benchDatabases(): Database[] {
  const mysqlUrl = [process.env.DATABASE_URL, process.env.TEST_MYSQL_URL].find(
    (url) => url !== undefined && /^(mysql|mariadb):\/\//.test(url),
  );
  return mysqlUrl ? [sqlite, mysql(mysqlUrl)] : [sqlite];
}

/**
 * Cost per run: the same task (3 rounds × 3 parallel calls of an http tool, then the answer, against the
 * scripted local model) as a REST run through the real app (`?wait=true`) and as a bare `openai` SDK
 * streaming loop in the same process. Per LLM call on SQLite, and on MariaDB when DATABASE_URL or
 * TEST_MYSQL_URL names one. `node -r @swc-node/register bench/run-cost.bench.ts`
 */
export async function benchRunCost(): Promise<Record<string, number>> {
  const results: Record<string, number> = {};
  for (const database of benchDatabases()) {
    for (const [name, value] of Object.entries(await benchOn(database))) results[`${database.label}_${name}`] = value;
  }
  return results;
}

if (require.main === module) {
  void benchRunCost().then((results) => {
    console.log(
      `run cost (${ROUNDS} rounds × ${CALLS_PER_ROUND} parallel http calls + answer, median of ${REPETITIONS})`,
    );
    for (const [name, value] of Object.entries(results)) console.log(`  ${name}: ${value}`);
  });
}
