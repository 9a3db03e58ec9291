import { Redis } from 'ioredis';
import { type ChildApp, callChildApp, queryDatabase } from '../support/child-app';
import { OpenAITestServer, reply } from '../support/openai-test-server';
import { QueueDeployment } from '../support/queue-deployment';
import { TcpProxy } from '../support/tcp-proxy';
import { describeWithRedis } from '../support/test-redis';
import { waitFor } from '../support/wait-for';
import { agentWorkflow } from '../support/workflow-fixtures';

// Three processes are compiled at their start: slow on a busy machine.
jest.setTimeout(600_000);

const mysqlUrl = process.env.DATABASE_URL;
const onMysql = mysqlUrl !== undefined && /^(mysql|mariadb):\/\//.test(mysqlUrl);
const LEASE_MS = 5000;
const DB_RETRY_MS = 1000;
const SLOTS_PER_WORKER = 2;
const RUNS = 10;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// The outage cuts a TCP proxy between the processes and MariaDB; SQLite has no connection to cut.
(onMysql ? describeWithRedis() : describe.skip)('Queue mode through a database outage (e2e, MySQL/MariaDB)', () => {
  let llm: OpenAITestServer;
  let proxy: TcpProxy;
  let deployment: QueueDeployment;
  let redis: Redis;
  let api: ChildApp;

  const unfinished = async (): Promise<Array<{ id: string; status: string }>> =>
    queryDatabase(deployment.database.url, "SELECT id, status FROM runs WHERE status IN ('queued', 'running')");

  /** Jobs BullMQ still holds for a worker: waiting or being processed. */
  const jobsLeft = async (): Promise<number> =>
    (await redis.llen(`${deployment.prefix}:runs:wait`)) + (await redis.llen(`${deployment.prefix}:runs:active`));

  beforeAll(async () => {
    const target = new URL(String(mysqlUrl).replace(/^mariadb:/, 'mysql:'));
    proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 3306) });
    llm = await OpenAITestServer.start();
    deployment = await QueueDeployment.create(
      llm,
      {
        RUN_LEASE_MS: String(LEASE_MS),
        RUN_DB_RETRY_MS: String(DB_RETRY_MS),
        MAX_CONCURRENT_RUNS: String(SLOTS_PER_WORKER),
      },
      (url) => {
        const viaProxy = new URL(url);
        viaProxy.host = `127.0.0.1:${proxy.port}`;
        return viaProxy.toString();
      },
    );
    redis = new Redis(deployment.redisUrl);
    [api] = await deployment.start('api', 'worker', 'worker');
  });

  afterAll(async () => {
    proxy?.restore();
    redis?.disconnect();
    await deployment?.close();
    await llm?.close();
    await proxy?.close();
  });

  it('should finish every run within RUN_LEASE_MS of the database coming back after an outage longer than RUN_DB_RETRY_MS', async () => {
    const release = llm.hold();
    // Runs resumed after the outage may ask the model again.
    llm.script(Array.from({ length: 3 * RUNS }, () => reply.text('Answered.')));
    const ids: string[] = [];
    for (let index = 0; index < RUNS; index++) {
      const started = await callChildApp<{ id: string }>(api, '/workflow-runs', {
        method: 'POST',
        body: { definition: agentWorkflow({}), inputs: { question: `Question ${index}?` } },
      });
      expect(started.status).toBe(202);
      ids.push(started.body.id);
    }
    // Every slot of both workers is taken, the other runs wait in the queue.
    await waitFor(() => llm.requests.length === 2 * SLOTS_PER_WORKER, { what: 'both workers called the model' });

    proxy.cutOff();
    const outageStarted = Date.now();
    release();
    // The executing runs give up on the database after RUN_DB_RETRY_MS, and their workers take up the queued jobs,
    // which cannot lease their runs either: nothing is left in the queue.
    await waitFor(async () => (await jobsLeft()) === 0, {
      what: 'the workers consumed every job during the outage',
      timeoutMs: 120_000,
      intervalMs: 100,
    });
    // Longer than RUN_DB_RETRY_MS and than RUN_LEASE_MS: every lease taken before the outage has run out.
    await pause(Math.max(0, LEASE_MS + DB_RETRY_MS - (Date.now() - outageStarted)));
    const stuckBefore = (await unfinished()).length;
    proxy.restore();

    await waitFor(async () => (await unfinished()).length === 0, {
      what: `no run queued or running (${stuckBefore} were when the database came back)`,
      timeoutMs: LEASE_MS,
      intervalMs: 100,
    });
    const finished = await queryDatabase<{ status: string }>(
      deployment.database.url,
      `SELECT status FROM runs WHERE id IN (${ids.map(() => '?').join(', ')})`,
      ids,
    );
    expect(finished.map((run) => run.status)).toEqual(ids.map(() => 'succeeded'));
  });
});
