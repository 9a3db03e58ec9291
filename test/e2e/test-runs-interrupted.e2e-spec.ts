import { MISSED_HEARTBEATS } from '../../src/evaluations/test-run-heartbeat';
import { callChildApp, type ChildApp, queryDatabase, startChildApp, stopChildApp } from '../support/child-app';
import { OpenAITestServer, reply, type RecordedRequest } from '../support/openai-test-server';
import { throwawayDatabase } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { agentWorkflow, llmEnv } from '../support/workflow-fixtures';

type TestRun = {
  id: string;
  status: string;
  error: string | null;
  progress: { done: number; total: number };
  results: Array<{ name: string; passed: boolean }>;
  finished_at: string | null;
};
type Message = { role: string; content?: string | null };

const HEARTBEAT_MS = 1000;
const INTERRUPTED = /^interrupted: the process running it stopped at (\S+)$/;

const question = (request: RecordedRequest): string => {
  const messages = request.body.messages as Message[];
  return String(messages.filter((message) => message.role === 'user').at(-1)?.content);
};

// Each start compiles the app in a process of its own.
jest.setTimeout(240_000);

describe('Test runs whose process stopped (e2e, child processes)', () => {
  let llm: OpenAITestServer;
  let database: { url: string; drop: () => Promise<void> };
  let child: ChildApp | undefined;
  const releases: Array<() => void> = [];

  const api = async <T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> => {
    if (!child) throw new Error('no app running');
    const response = await callChildApp<T>(child, path, init);
    if (response.status >= 300) throw new Error(`${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };

  /** A stored workflow of one LLM node and a suite of 3 cases; answers the workflow id. */
  const storeSuite = async (): Promise<string> => {
    const { id } = await api<{ id: string }>('/workflows', { method: 'POST', body: agentWorkflow({}) });
    const cases = ['p1', 'p2', 'p3'].map((name) => ({
      name,
      inputs: { question: name },
      assertions: [{ type: 'text_contains', value: `Answer: ${name}` }],
    }));
    await api(`/workflows/${id}/tests`, { method: 'PUT', body: { cases } });
    llm.script(Array.from({ length: 6 }, () => reply.from((request) => reply.text(`Answer: ${question(request)}`))));
    return id;
  };

  /** Starts a test run, one case at a time: the first case ends, the second waits for its model. */
  const startWithSecondCaseHeld = async (workflowId: string): Promise<string> => {
    releases.push(llm.hold());
    const started = await api<TestRun>(`/workflows/${workflowId}/test-runs?wait=false`, {
      method: 'POST',
      body: { concurrency: 1 },
    });
    await waitFor(() => llm.requests.length === 1, { what: 'the first case calling its model' });
    releases.shift()?.();
    releases.push(llm.hold());
    await waitFor(
      async () => (await api<TestRun>(`/workflows/${workflowId}/test-runs/${started.id}`)).results.length === 1,
      { what: 'the first case ending' },
    );
    await waitFor(() => llm.requests.length === 2, { what: 'the second case calling its model' });
    return started.id;
  };

  beforeAll(async () => {
    llm = await OpenAITestServer.start();
  });

  beforeEach(async () => {
    database = await throwawayDatabase();
  });

  afterEach(async () => {
    if (child) await stopChildApp(child);
    child = undefined;
    for (const release of releases.splice(0)) release();
    llm.reset();
    await database.drop();
  });

  afterAll(async () => {
    await llm.close();
  });

  it('should end a test run whose process was killed as interrupted, its ended cases kept, within a few heartbeats', async () => {
    const env = llmEnv(llm, { DATABASE_URL: database.url, TEST_RUN_HEARTBEAT_MS: String(HEARTBEAT_MS) });
    child = await startChildApp(env);
    const workflowId = await storeSuite();
    const startedAt = Date.now();
    const testRunId = await startWithSecondCaseHeld(workflowId);

    await stopChildApp(child, 'SIGKILL');
    const killedAt = Date.now();
    child = await startChildApp(env);
    // The new process sweeps at start and at every heartbeat: a heartbeat is stale MISSED_HEARTBEATS intervals
    // after the kill, so the test run ends at most one interval after that (a margin of one more for the load).
    let testRun: TestRun | undefined;
    await waitFor(
      async () => {
        testRun = await api<TestRun>(`/workflows/${workflowId}/test-runs/${testRunId}`);
        return testRun.status !== 'running';
      },
      { what: 'the interrupted test run ending', timeoutMs: (MISSED_HEARTBEATS + 2) * HEARTBEAT_MS },
    );

    expect(testRun).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(INTERRUPTED) as unknown,
      progress: { done: 1, total: 3 },
      results: [{ name: 'p1', passed: true }],
    });
    const stoppedAt = Date.parse(INTERRUPTED.exec(testRun?.error ?? '')?.[1] ?? '');
    expect(stoppedAt).toBeGreaterThanOrEqual(startedAt);
    expect(stoppedAt).toBeLessThanOrEqual(killedAt);
    expect(testRun?.finished_at).not.toBeNull();
  });

  it('should end its unfinished test runs as interrupted on SIGTERM, after the shutdown grace', async () => {
    const env = llmEnv(llm, { DATABASE_URL: database.url, SHUTDOWN_GRACE_MS: '200' });
    child = await startChildApp(env);
    const workflowId = await storeSuite();
    const testRunId = await startWithSecondCaseHeld(workflowId);

    const exit = await stopChildApp(child, 'SIGTERM');
    child = undefined;

    expect(exit.code).toBe(0);
    const [row] = await queryDatabase<{ status: string; error: string | null; results: unknown }>(
      database.url,
      'SELECT status, error, results FROM test_runs WHERE id = ?',
      [testRunId],
    );
    const results = (typeof row.results === 'string' ? JSON.parse(row.results) : row.results) as TestRun['results'];
    expect(row.status).toBe('failed');
    expect(row.error).toMatch(INTERRUPTED);
    expect(results.map((result) => result.name)).toEqual(['p1']);
  });
});
