import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { type ChildApp, startChildApp } from '../support/child-app';
import { OpenAITestServer, reply } from '../support/openai-test-server';
import { QueueDeployment } from '../support/queue-deployment';
import { ADMIN_KEY, throwawayDatabase } from '../support/test-app';
import { testRedisUrl } from '../support/test-redis';
import { waitFor } from '../support/wait-for';
import { agentWorkflow, llmEnv } from '../support/workflow-fixtures';

// Each test starts the app (and in queue mode a worker) as processes of their own, compiled at start.
jest.setTimeout(300_000);

const GRACE_MS = 8000;
/** Far beyond the grace period; only turns "never exits" into a failure instead of Jest's timeout. */
const EXIT_BOUND_MS = 45_000;

interface Answer {
  /** When the request was sent (Date.now()). */
  sentAt: number;
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One HTTP request on `agent` (a keep-alive agent reuses its socket); the whole body, however long it takes. */
function send(url: string, path: string, agent: Agent, method = 'GET', body?: unknown): Promise<Answer> {
  const sentAt = Date.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${url}/api/v1${path}`,
      {
        method,
        agent,
        headers: { Authorization: `Bearer ${ADMIN_KEY}`, 'Content-Type': 'application/json' },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({ sentAt, status: response.statusCode ?? 0, headers: response.headers, body: text }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** A client polling GET /runs every 250 ms on one keep-alive socket, whatever the server does, until stopped. */
class Poller {
  readonly answers: Answer[] = [];
  private stopped = false;
  private readonly done: Promise<void>;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });

  constructor(url: string) {
    this.done = this.loop(url);
  }

  private async loop(url: string): Promise<void> {
    while (!this.stopped) {
      // Refused or reset once the process stops listening: a client that does not give up tries again.
      const answer = await send(url, '/runs?page_size=1', this.agent).catch(() => null);
      if (answer) this.answers.push(answer);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
    this.agent.destroy();
  }
}

/** A connection that sends half a request and never the rest: no server-side "idle" ever closes it. */
function stuckClient(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`GET /api/v1/runs HTTP/1.1\r\nHost: ${hostname}\r\n`);
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

describe('An api process stopping under keep-alive clients and event streams (e2e, child processes)', () => {
  let llm: OpenAITestServer;
  let cleanup: (() => Promise<void>) | undefined;

  beforeEach(async () => {
    llm = await OpenAITestServer.start();
  });

  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
    await llm.close();
  });

  /** Starts the processes; resolves with the one the test stops (the api, or the embedded one). */
  const deployments: Record<string, () => Promise<ChildApp>> = {
    embedded: async () => {
      const database = await throwawayDatabase();
      const child = await startChildApp(
        llmEnv(llm, { DATABASE_URL: database.url, SHUTDOWN_GRACE_MS: String(GRACE_MS) }),
      );
      cleanup = async () => {
        if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
        await child.exited;
        await database.drop();
      };
      return child;
    },
    'ROLE=api': async () => {
      const deployment = await QueueDeployment.create(llm, { SHUTDOWN_GRACE_MS: String(GRACE_MS) });
      cleanup = () => deployment.close();
      const [api] = await deployment.start('api', 'worker');
      return api;
    },
  };
  const roles = testRedisUrl() ? ['embedded', 'ROLE=api'] : ['embedded'];

  it.each(roles)(
    '%s: should close kept-alive connections, end event streams with a retry hint and exit 0 within the grace period',
    async (role) => {
      const child = await deployments[role]();
      const release = llm.hold();
      llm.script([1, 2, 3, 4].map((turn) => reply.text(`Answer ${turn}.`)));

      const waits = [1, 2, 3].map(() =>
        send(child.url, '/workflow-runs?wait=true', new Agent(), 'POST', {
          definition: agentWorkflow({}),
          inputs: { question: 'Hi?' },
        }).catch((error: Error): Answer => ({ sentAt: 0, status: 0, headers: {}, body: error.message })),
      );
      const started = await send(child.url, '/workflow-runs', new Agent(), 'POST', {
        definition: agentWorkflow({}),
        inputs: { question: 'Streamed?' },
      });
      expect(started).toMatchObject({ status: 202 });
      const streamed = send(child.url, `/runs/${(JSON.parse(started.body) as { id: string }).id}/events`, new Agent());
      await waitFor(() => llm.requests.length === 4, { what: 'every run asked the model', timeoutMs: 60_000 });

      const poller = new Poller(child.url);
      const stuck = await stuckClient(child.url);
      try {
        await waitFor(() => poller.answers.length >= 2, {
          what: 'the poller reused its connection',
          timeoutMs: 60_000,
        });
        expect(poller.answers.every((answer) => answer.headers.connection === 'keep-alive')).toBe(true);

        child.process.kill('SIGTERM');
        // The stream ends at once, before its run: the client is told when to reconnect (to another process).
        const stream = await streamed;
        const stopping = Date.now();
        expect(stream.status).toBe(200);
        expect(stream.body).toMatch(/^retry: \d+$/m);
        expect(stream.body).not.toContain('run.finished');
        if (role === 'embedded') {
          // It drains its runs before it stops listening: a client that connects meanwhile is answered.
          await waitFor(() => poller.answers.some((answer) => answer.sentAt > stopping), {
            what: 'the poller was answered during the drain',
            timeoutMs: 60_000,
          });
        }

        // The runs in flight finish during the shutdown; their waiting requests are answered.
        release();
        const answered = await Promise.all(waits);
        expect(answered.map((answer) => answer.status)).toEqual([200, 200, 200]);

        // The poller never stops and the stuck client never finishes its request: the process exits anyway.
        let bound: NodeJS.Timeout | undefined;
        const exit = await Promise.race([
          child.exited,
          new Promise((resolve) => (bound = setTimeout(() => resolve('still running'), EXIT_BOUND_MS))),
        ]);
        clearTimeout(bound);
        expect(exit).toEqual({ code: 0, signal: null });
        // Every answer of the shutdown tells its client to leave the socket (requests in flight at its start too).
        const duringShutdown = poller.answers.filter((answer) => answer.sentAt > stopping);
        expect(duringShutdown.map((answer) => answer.headers.connection)).toEqual(duringShutdown.map(() => 'close'));
        expect(answered.map((answer) => answer.headers.connection)).toEqual(['close', 'close', 'close']);
      } finally {
        stuck.destroy();
        await poller.stop();
      }
    },
  );
});
