import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChildApp, callChildApp, startChildApp, stopChildApp } from '../support/child-app';
import { OpenAITestServer, reply } from '../support/openai-test-server';
import { throwawayMysqlDatabase } from '../support/throwaway-mysql';
import { startToolBackend, type ToolBackend } from '../support/tool-backend';
import { waitFor } from '../support/wait-for';
import { agentWorkflow, httpToolBody, llmEnv } from '../support/workflow-fixtures';

// Each start compiles the app in a process of its own.
jest.setTimeout(300_000);

const RUNS = 6;
const mysqlUrl = process.env.TEST_MYSQL_URL;

interface Database {
  url: string;
  drop: () => Promise<void>;
}

const sqliteDatabase = (): Database => {
  const dir = mkdtempSync(join(tmpdir(), 'toolflow-embedded-'));
  return {
    url: `sqlite:${join(dir, 'runs.sqlite')}`,
    drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  };
};

const databases: Array<[string, () => Promise<Database>]> = [
  ['SQLite', () => Promise.resolve(sqliteDatabase())],
  ...(mysqlUrl
    ? [['MySQL/MariaDB', () => throwawayMysqlDatabase(mysqlUrl, 'tf_embedded')] as [string, () => Promise<Database>]]
    : []),
];

describe.each(databases)('A second embedded process on one %s database (e2e, child processes)', (_name, create) => {
  let llm: OpenAITestServer;
  let backend: ToolBackend;
  let database: Database;
  let first: ChildApp | undefined;
  let second: ChildApp | undefined;

  beforeAll(async () => {
    llm = await OpenAITestServer.start();
    backend = await startToolBackend();
    database = await create();
  });

  afterAll(async () => {
    if (second) await stopChildApp(second);
    if (first) await stopChildApp(first);
    await backend?.close();
    await llm?.close();
    await database?.drop();
  });

  it('should refuse to start, saying to set REDIS_URL, and leave the first process its runs: no tool called twice', async () => {
    const env = llmEnv(llm, { DATABASE_URL: database.url });
    first = await startChildApp(env);
    const tool = httpToolBody('write', `${backend.origin}/write?id={id}`, { effect: 'mutating' });
    expect((await callChildApp(first, '/tools', { method: 'POST', body: tool })).status).toBe(201);
    // Each run asks for one write named after its question, then answers.
    llm.script(
      Array.from({ length: 4 * RUNS }, () =>
        reply.from((request) => {
          const messages = request.body.messages as Array<{ role: string; content?: string }>;
          if (messages.some((message) => message.role === 'tool')) return reply.text('Written.');
          const question = messages.findLast((message) => message.role === 'user')?.content ?? '';
          return reply.toolCalls([{ id: 'call_write', name: 'write', arguments: { id: question } }]);
        }),
      ),
    );
    const release = llm.hold();
    const ids: string[] = [];
    for (let index = 0; index < RUNS; index++) {
      const started = await callChildApp<{ id: string }>(first, '/workflow-runs', {
        method: 'POST',
        body: { definition: agentWorkflow({ tools: ['write'] }), inputs: { question: `w${index}` } },
      });
      expect(started.status).toBe(202);
      ids.push(started.body.id);
    }
    await waitFor(() => llm.requests.length === RUNS, { what: 'every run of the first process asked the model' });

    const refused = await startChildApp(env).then(
      (child) => {
        second = child;
        return 'started';
      },
      (error: unknown) => String(error),
    );
    release();

    expect(refused).toMatch(/another ToolFlow process without REDIS_URL.*Set REDIS_URL/s);
    await waitFor(
      async () => {
        const statuses = await Promise.all(
          ids.map(async (id) => (await callChildApp<{ status: string }>(first as ChildApp, `/runs/${id}`)).body.status),
        );
        return statuses.every((status) => status === 'succeeded');
      },
      { what: 'the first process finished its runs', timeoutMs: 60_000, intervalMs: 200 },
    );
    const writes = backend.hits.filter((hit) => hit.path === '/write').map((hit) => hit.params.id);
    expect(writes.sort()).toEqual(ids.map((_id, index) => `w${index}`));
    expect(llm.requests).toHaveLength(2 * RUNS);
  });
});
