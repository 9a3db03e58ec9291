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
    app = await startTestApp(llmEnv(llm), {
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
    const stored = await app.app
      .get(DataSource)
      .query<Array<{ seq: number; type: string }>>('SELECT seq, type FROM run_events WHERE run_id = ? ORDER BY seq', [
        id,
      ]);
    expect(stored.map((event) => Number(event.seq))).toEqual(stored.map((_event, index) => index + 1));
    const types = stored.map((event) => event.type);
    expect(types[0]).toBe('run.started');
    expect(types).toContain('llm.delta');
    expect(types.filter((type) => type === 'node.finished')).toHaveLength(3);
    expect(types.at(-1)).toBe('run.finished');
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
