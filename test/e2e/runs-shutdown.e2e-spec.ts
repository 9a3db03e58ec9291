import { OpenAITestServer, reply } from '../support/openai-test-server';
import { type ChildApp, queryDatabase, startChildApp } from '../support/child-app';
import { ADMIN_KEY, throwawayDatabase } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { agentWorkflow, llmEnv } from '../support/workflow-fixtures';

interface StoredRun {
  status: string;
  error: string | null;
}

// Each test starts the app as a process of its own, compiled at start.
jest.setTimeout(120_000);

describe('Runs when the process gets SIGTERM (e2e, child process)', () => {
  let llm: OpenAITestServer;
  let database: { url: string; drop: () => Promise<void> };
  let child: ChildApp | undefined;

  const api = (path: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(`${child?.url}/api/v1${path}`, {
      method: init.method ?? 'GET',
      headers: { Authorization: `Bearer ${ADMIN_KEY}`, 'Content-Type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });

  /** Starts a run whose model answer the test server holds back; resolves once the model was asked. */
  const startHeldRun = async () => {
    const response = await api('/workflow-runs', {
      method: 'POST',
      body: { definition: agentWorkflow({}), inputs: { question: 'Hi?' } },
    });
    expect(response.status).toBe(202);
    const { id } = (await response.json()) as { id: string };
    await waitFor(() => llm.requests.length > 0, { what: 'the model was asked' });
    return id;
  };

  const storedRun = async (id: string) =>
    (await queryDatabase<StoredRun>(database.url, 'SELECT status, error FROM runs WHERE id = ?', [id]))[0];
  const storedEvents = async (id: string) =>
    (
      await queryDatabase<{ type: string; data: unknown }>(
        database.url,
        'SELECT type, data FROM run_events WHERE run_id = ? ORDER BY seq',
        [id],
      )
    ).map((event) => ({
      type: event.type,
      data: (typeof event.data === 'string' ? JSON.parse(event.data) : event.data) as Record<string, unknown>,
    }));

  beforeEach(async () => {
    llm = await OpenAITestServer.start();
    database = await throwawayDatabase();
  });

  afterEach(async () => {
    if (child && child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
    await child?.exited;
    child = undefined;
    await llm.close();
    await database.drop();
  });

  it('should refuse new runs while draining and let a run that ends within the grace period succeed', async () => {
    child = await startChildApp(llmEnv(llm, { DATABASE_URL: database.url, SHUTDOWN_GRACE_MS: '120000' }));
    const release = llm.hold();
    llm.script([reply.text('Finished during the drain.')]);
    const id = await startHeldRun();

    child.process.kill('SIGTERM');
    // Inputs missing `question`: 400 while runs are still accepted, so no second run is created before the drain.
    // A draining process closes idle kept-alive connections: a request sent on one just as it closes fails
    // ("fetch failed", ECONNRESET) without reaching the server, and a client sends it again on a new one.
    const post = async (): Promise<Response> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await api('/workflow-runs', { method: 'POST', body: { definition: agentWorkflow({}), inputs: {} } });
        } catch (error) {
          // Node's errors are of another realm under Jest: compare the name, not the class.
          if ((error as Error).name !== 'TypeError' || attempt >= 20) throw error;
        }
      }
    };
    let refused: Response;
    do {
      refused = await post();
    } while (refused.status === 400);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    release();
    await child.exited;

    await expect(storedRun(id)).resolves.toMatchObject({ status: 'succeeded', error: null });
    const events = await storedEvents(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', data: { status: 'succeeded' } });
  });

  it('should hand a run still going after the grace period back unfinished, and resume it at the next start', async () => {
    const env = llmEnv(llm, { DATABASE_URL: database.url, SHUTDOWN_GRACE_MS: '200' });
    child = await startChildApp(env);
    const release = llm.hold();
    llm.script([reply.text('Never delivered.'), reply.text('Answered after the restart.')]);
    const id = await startHeldRun();

    child.process.kill('SIGTERM');
    await child.exited;

    await expect(storedRun(id)).resolves.toMatchObject({ status: 'running', error: null });
    const handedBack = await storedEvents(id);
    expect(handedBack.map((event) => event.type)).toContain('node.started');
    expect(handedBack.map((event) => event.type)).not.toContain('run.finished');

    release();
    child = await startChildApp(env);
    await waitFor(async () => (await storedRun(id)).status === 'succeeded', { what: 'the resumed run succeeded' });
    expect(llm.requests).toHaveLength(2);
    const events = await storedEvents(id);
    expect(events.at(-1)).toMatchObject({
      type: 'run.finished',
      data: { status: 'succeeded', outputs: { answer: 'Answered after the restart.' } },
    });
  });
});
