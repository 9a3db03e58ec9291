import { migrations } from '../../migrations';
import { type ChildApp, callChildApp, queryDatabase } from '../support/child-app';
import { OpenAITestServer, reply } from '../support/openai-test-server';
import { QueueDeployment } from '../support/queue-deployment';
import { readRunEvents } from '../support/sse';
import { ADMIN_KEY } from '../support/test-app';
import { describeWithRedis } from '../support/test-redis';
import { waitFor } from '../support/wait-for';
import { startToolBackend, type ToolBackend } from '../support/tool-backend';
import { agentWorkflow, httpToolBody } from '../support/workflow-fixtures';

// Every process is compiled at its start, four of them at once: slow on a busy machine.
jest.setTimeout(600_000);

interface RunBody {
  id: string;
  status: string;
  error: string | null;
  outputs: Record<string, unknown> | null;
}

/** One api and three workers as child processes on one database and one Redis, the way a deployment runs. */
describeWithRedis()('Queue mode: api and worker processes on one database and Redis (e2e)', () => {
  let llm: OpenAITestServer;
  let backend: ToolBackend;
  let deployment: QueueDeployment;
  let api: ChildApp;
  let workers: ChildApp[] = [];

  const call = (target: ChildApp, path: string, init: { method?: string; body?: unknown } = {}) =>
    callChildApp<RunBody>(target, path, init);

  const startRun = async (question = 'Hi?') => {
    const response = await call(api, '/workflow-runs', {
      method: 'POST',
      body: { definition: agentWorkflow({}), inputs: { question } },
    });
    expect(response).toMatchObject({ status: 202, body: { status: 'queued' } });
    return response.body.id;
  };

  const getRun = async (id: string) => (await call(api, `/runs/${id}`)).body;

  /** The worker process holding the run's lease (its owner id carries the pid). */
  const holderOf = async (id: string): Promise<ChildApp> => {
    let holder: ChildApp | undefined;
    await waitFor(
      async () => {
        const [row] = await queryDatabase<{ lease_owner: string | null }>(
          deployment.database.url,
          'SELECT lease_owner FROM runs WHERE id = ?',
          [id],
        );
        holder = workers.find((worker) => row?.lease_owner?.split(':')[1] === String(worker.process.pid));
        return holder !== undefined;
      },
      { what: 'a worker holds the run', intervalMs: 100 },
    );
    return holder as ChildApp;
  };

  beforeAll(async () => {
    llm = await OpenAITestServer.start();
    backend = await startToolBackend();
    deployment = await QueueDeployment.create(llm, { RUN_LEASE_MS: '3000', SHUTDOWN_GRACE_MS: '5000' });
    // Four processes at once on a fresh database: one migrates it, the others wait for it.
    // A third worker, so that after the SIGKILL test two are left for the SIGTERM one.
    [api, ...workers] = await deployment.start('api', 'worker', 'worker', 'worker');
  });

  afterEach(() => llm.reset());

  afterAll(async () => {
    await deployment?.close();
    await llm?.close();
    await backend?.close();
  });

  it('should have migrated the fresh database exactly once while four processes started together', async () => {
    const applied = await queryDatabase<{ name: string }>(deployment.database.url, 'SELECT name FROM migrations');
    expect(applied.map((row) => row.name).sort()).toEqual(migrations.map((migration) => migration.name).sort());
  });

  it('should answer only GET /health on a worker', async () => {
    const worker = workers[0];
    expect((await fetch(`${worker.url}/health`)).status).toBe(200);
    const tools = await fetch(`${worker.url}/api/v1/tools`, { headers: { Authorization: `Bearer ${ADMIN_KEY}` } });
    expect(tools.status).toBe(404);
    expect((await fetch(`${worker.url}/api/docs-json`)).status).toBe(404);
  });

  it('should stream, through the api process, the events of a run a worker executes', async () => {
    const release = llm.hold();
    llm.script([reply.text('Hello from a worker.')]);
    const id = await startRun();
    await waitFor(() => llm.requests.length === 1, { what: 'a worker asked the model' });

    const reading = readRunEvents(api.url, id, ADMIN_KEY);
    release();
    const { status, events } = await reading;

    expect(status).toBe(200);
    const names = events.map((event) => event.event);
    expect(names.slice(0, 2)).toEqual(['run.started', 'node.started']);
    expect(names).toContain('llm.delta');
    expect(events.at(-1)).toMatchObject({ event: 'run.finished', data: { status: 'succeeded' } });
    expect(events.map((event) => event.id)).toEqual(events.map((_, index) => index + 1));
    expect(await getRun(id)).toMatchObject({ status: 'succeeded', outputs: { answer: 'Hello from a worker.' } });

    const replayed = await readRunEvents(api.url, id, ADMIN_KEY, { 'Last-Event-ID': '2' });
    expect(replayed.events.map((event) => event.id)).toEqual(events.slice(2).map((event) => event.id));
  });

  it('should stop a run on a worker when the api process cancels it, with no model call after', async () => {
    const release = llm.hold();
    llm.script([reply.text('Too late.'), reply.text('Never asked for.')]);
    const id = await startRun();
    await waitFor(() => llm.requests.length === 1, { what: 'a worker asked the model' });

    const cancelled = await call(api, `/runs/${id}/cancel`, { method: 'POST' });

    expect(cancelled).toMatchObject({ status: 200, body: { status: 'cancelled' } });
    expect((await getRun(id)).status).toBe('cancelled');
    const { events } = await readRunEvents(api.url, id, ADMIN_KEY);
    expect(events.at(-1)).toMatchObject({ event: 'run.finished', data: { status: 'cancelled' } });
    release();
    expect((await getRun(id)).status).toBe('cancelled');
    expect(llm.requests).toHaveLength(1);
  });

  it('should let another worker finish a run whose worker was killed with SIGKILL, repeating no finished call', async () => {
    const tool = await call(api, '/tools', {
      method: 'POST',
      body: httpToolBody('ping', `${backend.origin}/ping?id={id}`),
    });
    expect(tool.status).toBe(201);
    llm.script([
      reply.toolCalls([{ name: 'ping', id: 'call_1', arguments: { id: 'first' } }]),
      reply.text('Finished by the survivor.'),
    ]);
    backend.hold();
    const response = await call(api, '/workflow-runs', {
      method: 'POST',
      body: { definition: agentWorkflow({ tools: ['ping'] }), inputs: { question: 'Ping?' } },
    });
    const { id } = response.body;
    await waitFor(() => backend.held.length === 1, { what: 'the tool call is in flight' });
    const victim = await holderOf(id);

    victim.process.kill('SIGKILL');
    await victim.exited;
    backend.releaseAll();

    await waitFor(async () => (await getRun(id)).status === 'succeeded', {
      what: 'the survivor finished the run',
      timeoutMs: 60_000,
      intervalMs: 200,
    });
    expect(await getRun(id)).toMatchObject({ outputs: { answer: 'Finished by the survivor.' } });
    // The model call that had answered before the crash was not made again; the read-only call in flight was.
    expect(llm.requests).toHaveLength(2);
    expect(backend.hits.filter((hit) => hit.path === '/ping')).toHaveLength(2);
  });

  it('should hand a run back when its worker gets SIGTERM, exit 0, and let another worker finish it', async () => {
    const release = llm.hold();
    llm.script([reply.text('Finished after the hand-back.'), reply.text('Finished after the hand-back.')]);
    const id = await startRun();
    await waitFor(() => llm.requests.length === 1, { what: 'a worker asked the model' });
    const leaving = await holderOf(id);

    leaving.process.kill('SIGTERM');
    await expect(leaving.exited).resolves.toEqual({ code: 0, signal: null });
    release();

    await waitFor(async () => (await getRun(id)).status === 'succeeded', {
      what: 'another worker finished the run',
      timeoutMs: 60_000,
      intervalMs: 200,
    });
    const { events } = await readRunEvents(api.url, id, ADMIN_KEY);
    expect(events.filter((event) => event.event === 'run.finished')).toHaveLength(1);
  });

  it('should end open event streams cleanly and exit 0 when the api process gets SIGTERM', async () => {
    const release = llm.hold();
    llm.script([reply.text('Answered after the api left.')]);
    const id = await startRun();
    await waitFor(() => llm.requests.length === 1, { what: 'a worker asked the model' });
    const response = await fetch(`${api.url}/api/v1/runs/${id}/events`, {
      headers: { Authorization: `Bearer ${ADMIN_KEY}` },
    });
    const reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('event: run.started')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended early: ${text}`);
      text += value;
    }

    api.process.kill('SIGTERM');

    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    expect(response.status).toBe(200);
    expect(text).not.toContain('event: run.finished');
    await expect(api.exited).resolves.toEqual({ code: 0, signal: null });
    release();
  });
});
