import { Redis } from 'ioredis';
import { performance } from 'node:perf_hooks';
import { type ChildApp, callChildApp, stopChildApp } from '../support/child-app';
import { OpenAITestServer, reply } from '../support/openai-test-server';
import { QueueDeployment } from '../support/queue-deployment';
import { TcpProxy } from '../support/tcp-proxy';
import { describeWithRedis } from '../support/test-redis';
import { startToolBackend, type ToolBackend } from '../support/tool-backend';
import { waitFor } from '../support/wait-for';
import { agentWorkflow, httpToolBody } from '../support/workflow-fixtures';

// Processes are compiled at their start, one after another here: slow on a busy machine.
jest.setTimeout(600_000);

const mysqlUrl = process.env.DATABASE_URL;
const onMysql = mysqlUrl !== undefined && /^(mysql|mariadb):\/\//.test(mysqlUrl);
const LEASE_MS = 4000;
/** A run taken over "within about RUN_LEASE_MS": the lease, a reconciler pass, the run itself, a busy machine. */
const TAKEOVER_BOUND_MS = 5 * LEASE_MS;

/**
 * A worker that took a run's job from the queue but never leased the run: it died there (kill -9), or it is stuck
 * there (its database connection hangs) while its Redis connection keeps the job's lock alive. Another worker
 * must take the run over within about RUN_LEASE_MS, and every tool is still called once.
 * Each victim reaches the database through a TCP proxy the test hangs, which holds it between the two steps.
 */
(onMysql ? describeWithRedis() : describe.skip)('Queue mode: a job taken by a worker that never leased its run', () => {
  let llm: OpenAITestServer;
  let backend: ToolBackend;
  let deployment: QueueDeployment;
  let redis: Redis;
  let api: ChildApp;
  let survivor: ChildApp | undefined;
  const proxies: TcpProxy[] = [];

  /** A worker with one slot whose database connections go through a proxy the test can hang. */
  const startVictim = async (): Promise<{ victim: ChildApp; proxy: TcpProxy }> => {
    const target = new URL(String(mysqlUrl).replace(/^mariadb:/, 'mysql:'));
    const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 3306) });
    proxies.push(proxy);
    const databaseUrl = new URL(deployment.database.url);
    databaseUrl.host = `127.0.0.1:${proxy.port}`;
    const victim = await deployment.startWith('worker', {
      DATABASE_URL: databaseUrl.toString(),
      MAX_CONCURRENT_RUNS: '1',
      // Its lease statement waits on the hung database for as long as the test needs, not DATABASE_TIMEOUT_MS.
      DATABASE_TIMEOUT_MS: '600000',
    });
    return { victim, proxy };
  };

  /** Posts a run calling the mutating tool once, and waits until a worker has taken its job. */
  const startRun = async (tool: string): Promise<string> => {
    llm.script([reply.toolCalls([{ name: tool, id: 'call_1', arguments: { id: 'once' } }]), reply.text('Done.')]);
    const response = await callChildApp<{ id: string }>(api, '/workflow-runs', {
      method: 'POST',
      body: { definition: agentWorkflow({ tools: [tool] }), inputs: { question: 'Do it once.' } },
    });
    expect(response.status).toBe(202);
    await waitFor(async () => (await redis.llen(`${deployment.prefix}:runs:active`)) === 1, {
      what: 'a worker took the job',
      intervalMs: 20,
    });
    return response.body.id;
  };

  const createTool = async (name: string): Promise<void> => {
    const created = await callChildApp(api, '/tools', {
      method: 'POST',
      body: httpToolBody(name, `${backend.origin}/${name}?id={id}`, { effect: 'mutating' }),
    });
    expect(created.status).toBe(201);
  };

  const statusOf = async (id: string): Promise<string> =>
    (await callChildApp<{ status: string }>(api, `/runs/${id}`)).body.status;

  beforeAll(async () => {
    llm = await OpenAITestServer.start();
    backend = await startToolBackend();
    deployment = await QueueDeployment.create(llm, { RUN_LEASE_MS: String(LEASE_MS) });
    redis = new Redis(deployment.redisUrl);
    [api] = await deployment.start('api');
  });

  afterEach(() => llm.reset());

  afterAll(async () => {
    if (survivor) survivor.process.kill('SIGCONT');
    redis?.disconnect();
    await deployment?.close();
    for (const proxy of proxies) await proxy.close();
    await llm?.close();
    await backend?.close();
  });

  it('should let another worker run, within about RUN_LEASE_MS, a run whose worker was killed before leasing it', async () => {
    await createTool('refund_a');
    const { victim, proxy } = await startVictim();
    proxy.hang();
    const id = await startRun('refund_a');

    await stopChildApp(victim, 'SIGKILL');
    proxy.restore();
    [survivor] = await deployment.start('worker');
    const ready = performance.now();

    await waitFor(async () => (await statusOf(id)) === 'succeeded', {
      what: 'the surviving worker finished the run',
      timeoutMs: TAKEOVER_BOUND_MS,
      intervalMs: 100,
    });
    expect(performance.now() - ready).toBeLessThan(TAKEOVER_BOUND_MS);
    expect(backend.hits.filter((hit) => hit.path === '/refund_a')).toHaveLength(1);
    expect(llm.requests).toHaveLength(2);
  });

  it('should take over, exactly once, a run whose worker holds its job alive but cannot lease it', async () => {
    await createTool('refund_b');
    const live = survivor as ChildApp;
    // The survivor must not take this job first: it sleeps until the victim holds it.
    live.process.kill('SIGSTOP');
    const { victim, proxy } = await startVictim();
    proxy.hang();
    const id = await startRun('refund_b');
    live.process.kill('SIGCONT');
    const woken = performance.now();

    await waitFor(async () => (await statusOf(id)) === 'succeeded', {
      what: 'the other worker finished the run',
      timeoutMs: TAKEOVER_BOUND_MS,
      intervalMs: 100,
    });
    expect(performance.now() - woken).toBeLessThan(TAKEOVER_BOUND_MS);

    // The stuck worker's lease statement goes through now, finds the run taken and ended, and does nothing.
    proxy.restore();
    await waitFor(async () => (await redis.llen(`${deployment.prefix}:runs:active`)) === 0, {
      what: 'the stuck worker let go of its job',
      timeoutMs: 60_000,
      intervalMs: 100,
    });
    expect(await statusOf(id)).toBe('succeeded');
    expect(backend.hits.filter((hit) => hit.path === '/refund_b')).toHaveLength(1);
    expect(llm.requests).toHaveLength(2);
    await stopChildApp(victim);
  });
});
