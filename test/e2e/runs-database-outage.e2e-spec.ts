import { DataSource } from 'typeorm';
import request from 'supertest';
import { OpenAITestServer, reply } from '../support/openai-test-server';
import { TcpProxy } from '../support/tcp-proxy';
import { ADMIN_KEY, bearer, startTestApp, type TestApp } from '../support/test-app';
import { WorkflowApi } from '../support/workflow-api';
import { waitFor } from '../support/wait-for';
import { agentWorkflow, llmEnv } from '../support/workflow-fixtures';

const mysqlUrl = process.env.DATABASE_URL;
const onMysql = mysqlUrl !== undefined && /^(mysql|mariadb):\/\//.test(mysqlUrl);

// The outage is made by cutting a TCP proxy between the app and MySQL/MariaDB; SQLite has no connection to cut.
(onMysql ? describe : describe.skip)('Runs through a database outage (e2e, MySQL/MariaDB)', () => {
  let llm: OpenAITestServer;
  let proxy: TcpProxy;
  let app: TestApp;

  beforeAll(async () => {
    const target = new URL(String(mysqlUrl).replace(/^mariadb:/, 'mysql:'));
    proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 3306) });
    llm = await OpenAITestServer.start();
    // A statement or connection checkout that gets no answer fails after this (DATABASE_TIMEOUT_MS).
    app = await startTestApp(llmEnv(llm, { DATABASE_TIMEOUT_MS: '3000' }), {
      connectVia: (url) => {
        const viaProxy = new URL(url);
        viaProxy.host = `127.0.0.1:${proxy.port}`;
        return viaProxy.toString();
      },
    });
  });

  afterAll(async () => {
    proxy?.restore();
    await app?.close();
    await llm?.close();
    await proxy?.close();
  });

  it('should answer 503 with Retry-After during the outage and finish the run with its events stored after it', async () => {
    const api = new WorkflowApi(app.http, ADMIN_KEY);
    const release = llm.hold();
    llm.script([reply.text('Answered after the outage.')]);
    const started = await api.runInline(agentWorkflow({}), { question: 'Hi?' }, false).expect(202);
    const { id } = started.body as { id: string };
    await api.waitForRun(id, (run) => run.status === 'running' && llm.requests.length === 1);

    proxy.cutOff();
    const during = await request(app.http).get(`/api/v1/runs/${id}`).set(bearer(ADMIN_KEY));
    expect(during.status).toBe(503);
    expect(during.headers['retry-after']).toMatch(/^\d+$/);
    expect(during.headers['content-type']).toContain('application/problem+json');
    expect(during.body).toMatchObject({ status: 503, detail: 'database unavailable' });

    // The model answers while the database is away: the run's next writes must wait for it.
    const attemptsBefore = proxy.refused;
    release();
    await waitFor(() => proxy.refused > attemptsBefore, { what: 'the run tried to write to the database' });
    proxy.restore();

    const run = await api.waitForRun(id);
    expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'Answered after the outage.' }, error: null });
    // The row says how the run ended before its last events are stored: a batch written during the outage may
    // still wait in its retry backoff (up to 2 s) when the row's own retry got through.
    let stored: Array<{ seq: number; type: string }> = [];
    await waitFor(
      async () => {
        stored = await app.app
          .get(DataSource)
          .query('SELECT seq, type FROM run_events WHERE run_id = ? ORDER BY seq', [id]);
        return stored.at(-1)?.type === 'run.finished';
      },
      { what: 'the stored log ends with run.finished', timeoutMs: 60_000 },
    );
    expect(stored.map((event) => Number(event.seq))).toEqual(stored.map((_event, index) => index + 1));
    const types = stored.map((event) => event.type);
    expect(types[0]).toBe('run.started');
    expect(types).toContain('llm.delta');
    expect(types.filter((type) => type === 'node.finished')).toHaveLength(3);
    expect(types.at(-1)).toBe('run.finished');
  });

  it('should answer 503 with Retry-After to API requests while the database hangs, and recover the run after', async () => {
    const api = new WorkflowApi(app.http, ADMIN_KEY);
    const release = llm.hold();
    llm.script([reply.text('Answered after the pause.')]);
    const asked = llm.requests.length;
    const started = await api.runInline(agentWorkflow({}), { question: 'Hi?' }, false).expect(202);
    const { id } = started.body as { id: string };
    await api.waitForRun(id, (run) => run.status === 'running' && llm.requests.length === asked + 1);

    // Connections accepted, nothing answered: a SIGSTOP'd mariadbd as the app sees it.
    proxy.hang();
    try {
      // The run's next writes meet the hung database: they wait within its retry budget (RUN_DB_RETRY_MS).
      release();
      // Bounds only turn a hang into a failure: the requests must fail by themselves, with 503.
      const tools = await request(app.http).get('/api/v1/tools').set(bearer(ADMIN_KEY)).timeout(15_000);
      expect(tools.status).toBe(503);
      expect(tools.headers['retry-after']).toMatch(/^\d+$/);
      expect(tools.body).toMatchObject({ status: 503, detail: 'database unavailable' });
      const run = await api.runInline(agentWorkflow({}), { question: 'Now?' }, false).timeout(15_000);
      expect(run.status).toBe(503);
      expect(run.headers['retry-after']).toMatch(/^\d+$/);
      const read = await request(app.http).get(`/api/v1/runs/${id}`).set(bearer(ADMIN_KEY)).timeout(15_000);
      expect(read.status).toBe(503);
    } finally {
      proxy.restore();
    }
    await expect(api.waitForRun(id)).resolves.toMatchObject({
      status: 'succeeded',
      outputs: { answer: 'Answered after the pause.' },
    });
    await request(app.http).get('/api/v1/tools').set(bearer(ADMIN_KEY)).expect(200);
    llm.script([reply.text('Back to normal.')]);
    const after = await api.runInline(agentWorkflow({}), { question: 'Again?' }).expect(200);
    expect(after.body).toMatchObject({ status: 'succeeded', outputs: { answer: 'Back to normal.' } });
  });

  it('should say the database is down on /health while it accepts connections and never answers', async () => {
    proxy.hang();
    try {
      const health = await request(app.http).get('/health').timeout(10_000);

      expect(health.status).toBe(503);
      expect(health.body).toEqual({ status: 'degraded', database: 'down' });
    } finally {
      proxy.cutOff();
      proxy.restore();
    }
    await waitFor(async () => (await request(app.http).get('/health')).status === 200, {
      what: 'the database is up again',
    });
  });
});
