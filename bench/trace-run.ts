import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { DataSource, type QueryRunner } from 'typeorm';
import { ToolCalls } from '../src/executors/tool-calls.service';
import { OpenAITestServer } from '../test/support/openai-test-server';
import { ADMIN_KEY, startTestApp } from '../test/support/test-app';
import { startToolBackend } from '../test/support/tool-backend';
import { httpToolBody, llmEnv } from '../test/support/workflow-fixtures';
import { benchDatabases, conversation, definition, pingParameters } from './run-cost.bench';

/**
 * The timeline of warm run-cost runs: when each model request and tool request arrives and is answered, and
 * each SQL statement is sent and answered, relative to the client's POST. `node -r @swc-node/register
 * bench/trace-run.ts [warm-up runs] [traced runs]`.
 */
async function main(): Promise<void> {
  const warmUp = Number(process.argv[2] ?? 100);
  const traced = Number(process.argv[3] ?? 3);
  const holdMs = Number(process.env.TRACE_HOLD_MS ?? 0);
  // Each tool call answered this much later: a tool backend far away.
  const toolDelay = process.env.TRACE_TOOL_DELAY_MS ? `&delay=${process.env.TRACE_TOOL_DELAY_MS}` : '';
  const quiet = process.env.TRACE_QUIET !== undefined;
  const walls: number[] = [];
  const gaps: Record<string, number[]> = {};
  const only = process.env.TRACE_DB;
  for (const database of benchDatabases().filter((candidate) => only === undefined || candidate.label === only)) {
    const llm = await OpenAITestServer.start();
    const backend = await startToolBackend();
    const data = await database.create();
    const app = await startTestApp(llmEnv(llm, { LOG_LEVEL: 'silent' }), { databaseUrl: data.url });
    const server = app.app.getHttpServer() as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const headers = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
    await fetch(`${baseUrl}/api/v1/tools`, {
      method: 'POST',
      headers,
      body: JSON.stringify(
        httpToolBody('ping', `${backend.origin}/ping?id={id}${toolDelay}`, { parameters: pingParameters }),
      ),
    });
    const workflow = await fetch(`${baseUrl}/api/v1/workflows`, {
      method: 'POST',
      headers,
      body: JSON.stringify(definition),
    });
    const workflowId = ((await workflow.json()) as { id: string }).id;

    let marks: { at: number; what: string }[] | null = null;
    const mark = (what: string) => marks?.push({ at: performance.now(), what });
    const llmServer = (llm as unknown as { server: Server }).server;
    llmServer.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
      mark('model request');
      response.on('finish', () => mark('model answered'));
    });
    if (process.env.TRACE_CALLS) {
      const toolCalls = app.app.get(ToolCalls);
      const runCall = toolCalls.runCall.bind(toolCalls);
      toolCalls.runCall = (options) => (mark(`runCall ${options.call.id}`), runCall(options));
    }
    const dataSource = app.app.get(DataSource);
    const driver = dataSource.driver;
    const original = driver.createQueryRunner.bind(driver);
    const wrapped = new WeakSet<QueryRunner>();
    driver.createQueryRunner = (mode) => {
      const runner = original(mode);
      if (!wrapped.has(runner)) {
        wrapped.add(runner);
        const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
        runner.query = (async (sql: string, ...rest: unknown[]) => {
          const text = sql.trim().replace(/\s+/g, ' ').slice(0, 70);
          mark(`sql> ${text}`);
          // Every statement held this long before it is sent: a database far away, making its round trips count.
          if (holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));
          try {
            return await query(sql, ...rest);
          } finally {
            mark(`sql< ${text.slice(0, 30)}`);
          }
        }) as QueryRunner['query'];
      }
      return runner;
    };

    const run = async () => {
      llm.reset();
      llm.script(conversation());
      backend.reset();
      mark('POST');
      const response = await fetch(`${baseUrl}/api/v1/workflows/${workflowId}/runs?wait=true`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ inputs: { question: 'Go.' } }),
      });
      mark('response headers');
      await response.json();
      mark('response body');
      return backend.hits.map((hit) => ({ at: hit.startedAt, what: 'tool request' }));
    };
    for (let index = 0; index < warmUp; index++) await run();
    for (let index = 0; index < traced; index++) {
      if (process.env.TRACE_PAUSE) await new Promise((resolve) => setTimeout(resolve, 300));
      marks = [];
      const hits = await run();
      const all = [...marks, ...hits].sort((a, b) => a.at - b.at);
      const start = all[0].at;
      walls.push(all.at(-1)!.at - start);
      gapsOf(all, gaps);
      marks = null;
      if (quiet) continue;
      console.log(`--- ${database.label} run ${index + 1}: ${(all.at(-1)!.at - start).toFixed(2)} ms`);
      for (const entry of all) console.log(`${(entry.at - start).toFixed(2).padStart(7)}  ${entry.what}`);
    }
    const sorted = [...walls].sort((a, b) => a - b);
    console.log(
      `${database.label}: median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms over ${walls.length} runs (hold ${holdMs} ms${toolDelay})`,
    );
    for (const [name, values] of Object.entries(gaps)) {
      const ordered = [...values].sort((a, b) => a - b);
      console.log(`  ${name}: median ${ordered[Math.floor(ordered.length / 2)].toFixed(2)} ms (${values.length})`);
      values.length = 0;
    }
    walls.length = 0;
    await app.close();
    await data.drop();
    await llm.close();
    await backend.close();
  }
}

/**
 * The intervals of one run's timeline that the run's ordering decides: from the POST to the first model request,
 * from each model answer that asks for tools to the first of its calls (`runCall`, with TRACE_CALLS) and to the
 * first tool request, from the last tool request of a round to the next model request, and from the last model
 * answer to the response.
 */
function gapsOf(all: { at: number; what: string }[], gaps: Record<string, number[]>): void {
  const add = (name: string, value: number) => (gaps[name] ??= []).push(value);
  const first = (what: string, after: number) => all.find((entry) => entry.at >= after && entry.what.startsWith(what));
  const answers = all.filter((entry) => entry.what === 'model answered');
  const post = all[0].at;
  const firstRequest = first('model request', post);
  if (firstRequest) add('POST -> 1st model request', firstRequest.at - post);
  for (const answered of answers.slice(0, -1)) {
    const call = first('runCall', answered.at);
    const tool = first('tool request', answered.at);
    if (call) add('model answer -> runCall', call.at - answered.at);
    if (tool) add('model answer -> tool request', tool.at - answered.at);
    const next = first('model request', answered.at);
    const lastTool = all.filter((entry) => entry.what === 'tool request' && next && entry.at < next.at).at(-1);
    if (next && lastTool) add('tool request -> model request', next.at - lastTool.at);
  }
  const response = first('response headers', post);
  if (response && answers.length > 0) add('last model answer -> response', response.at - answers.at(-1)!.at);
}

void main();
