import { type ChildApp, startChildApp } from '../support/child-app';
import { OpenAITestServer, reply } from '../support/openai-test-server';
import { readRunEvents } from '../support/sse';
import { ADMIN_KEY, throwawayDatabase } from '../support/test-app';
import { describeWithRedis, dropRedisPrefix, testRedisUrl, uniqueRedisPrefix } from '../support/test-redis';
import { waitFor } from '../support/wait-for';
import { agentWorkflow, llmEnv } from '../support/workflow-fixtures';

// Every process is compiled at its start, three of them at once: slow on a busy machine.
jest.setTimeout(600_000);

interface RunBody {
  id: string;
  status: string;
  outputs: Record<string, unknown> | null;
  pending_approvals?: Array<{ id: string; call_id: string; tool: string }>;
}

/** Two api processes and one worker with a single run slot, on one database and one Redis. */
describeWithRedis()('Human approval in queue mode: api and worker processes (e2e)', () => {
  const redisUrl = testRedisUrl() as string;
  const prefix = uniqueRedisPrefix();
  const tool = 'wipe_queue';
  let llm: OpenAITestServer;
  let database: { url: string; drop: () => Promise<void> };
  const children: ChildApp[] = [];

  const env = (role: string) =>
    llmEnv(llm, {
      DATABASE_URL: database.url,
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: prefix,
      ROLE: role,
      MAX_CONCURRENT_RUNS: '1',
      RUN_LEASE_MS: '3000',
      CODE_SANDBOX_PROCESSES: '1',
    });

  const call = async (target: ChildApp, path: string, init: { method?: string; body?: unknown } = {}) => {
    const response = await fetch(`${target.url}/api/v1${path}`, {
      method: init.method ?? 'GET',
      headers: { Authorization: `Bearer ${ADMIN_KEY}`, 'Content-Type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: response.status, body: (await response.json()) as RunBody };
  };

  beforeAll(async () => {
    llm = await OpenAITestServer.start();
    database = await throwawayDatabase();
    children.push(...(await Promise.all([startChildApp(env('api')), startChildApp(env('api'))])));
    children.push(await startChildApp(env('worker')));
    const created = await call(children[0], '/tools', {
      method: 'POST',
      body: {
        name: tool,
        description: 'Wipes a target',
        function_schema: {
          name: tool,
          description: 'Wipes a target',
          parameters: { type: 'object', properties: { target: { type: 'string' } }, required: ['target'] },
        },
        implementation_type: 'code',
        implementation_config: { language: 'javascript', code: 'return { received: args };' },
        effect: 'dangerous',
      },
    });
    expect(created.status).toBe(201);
  });

  afterAll(async () => {
    for (const child of children) {
      if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
      await child.exited;
    }
    await llm?.close();
    await database?.drop();
    await dropRedisPrefix(redisUrl, prefix);
  });

  it('should free the worker’s only slot while a run waits, and finish the run on the worker after a decision made on another api process', async () => {
    const [first, second] = children;
    llm.script([
      reply.toolCalls([{ name: tool, id: 'call_0', arguments: { target: 'db' } }]),
      reply.text('Meanwhile.'),
      reply.text('Wiped with care.'),
    ]);

    const waiting = await call(first, '/workflow-runs?wait=true', {
      method: 'POST',
      body: { definition: agentWorkflow({ tools: [tool] }), inputs: { question: 'Wipe.' } },
    });
    expect(waiting).toMatchObject({ status: 202, body: { status: 'waiting' } });
    const [approval] = waiting.body.pending_approvals ?? [];
    expect(approval).toMatchObject({ call_id: 'call_0', tool });

    // The worker has one slot: a second run only finishes if the waiting one does not hold it.
    const other = await call(first, '/workflow-runs?wait=true', {
      method: 'POST',
      body: { definition: agentWorkflow({}), inputs: { question: 'Other?' } },
    });
    expect(other).toMatchObject({ status: 200, body: { status: 'succeeded', outputs: { answer: 'Meanwhile.' } } });

    const decided = await call(second, `/runs/${waiting.body.id}/approvals/${approval.id}`, {
      method: 'POST',
      body: { decision: 'approve', arguments: { target: 'db-copy' } },
    });
    expect(decided.status).toBe(200);
    const again = await call(second, `/runs/${waiting.body.id}/approvals/${approval.id}`, {
      method: 'POST',
      body: { decision: 'reject' },
    });
    expect(again.status).toBe(409);

    let finished: RunBody | undefined;
    await waitFor(
      async () => {
        finished = (await call(first, `/runs/${waiting.body.id}`)).body;
        return finished.status === 'succeeded';
      },
      { what: 'the approved run finished on the worker', intervalMs: 100 },
    );
    expect(finished?.outputs).toEqual({ answer: 'Wiped with care.' });
    const told = llm.requests[2].body.messages as Array<{ role: string; content: string }>;
    expect(JSON.parse(told.find((message) => message.role === 'tool')?.content ?? '')).toEqual({
      received: { target: 'db-copy' },
    });
    const { events } = await readRunEvents(first.url, waiting.body.id, ADMIN_KEY);
    const names = events.map((event) => event.event);
    expect(names).toEqual(expect.arrayContaining(['approval.requested', 'approval.resolved', 'run.finished']));
    // The worker resumed the run it had executed, after another process added approval.resolved to its log.
    const after = names.slice(names.indexOf('approval.resolved'));
    expect(after.slice(0, 2)).toEqual(['approval.resolved', 'tool.result']);
    expect(after).toContain('llm.delta');
    expect(after.at(-1)).toBe('run.finished');
    expect(names.filter((name) => name === 'run.started')).toHaveLength(1);
    expect(events.map((event) => event.id)).toEqual(events.map((_, index) => index + 1));
  });
});
