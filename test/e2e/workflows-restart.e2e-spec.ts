import { OpenAITestServer, reply } from '../support/openai-test-server';
import { readRunEvents } from '../support/sse';
import { ADMIN_KEY, startTestApp, type TestApp } from '../support/test-app';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow, llmEnv } from '../support/workflow-fixtures';

describe('Runs interrupted by a restart (e2e)', () => {
  let llm: OpenAITestServer;
  let first: TestApp;
  let second: TestApp | undefined;

  beforeAll(async () => {
    llm = await OpenAITestServer.start();
    first = await startTestApp(llmEnv(llm));
  });

  afterAll(async () => {
    await second?.close();
    await first?.close();
    await llm?.close();
  });

  it('should mark a run left running by a process that went away as failed with reason interrupted and end its events', async () => {
    llm.script([reply.text('Never delivered.', { delayMs: 60_000 })]);
    const before = new WorkflowApi(first.http, ADMIN_KEY);
    const started = await before.runInline(agentWorkflow({}), { question: 'Hi?' }, false).expect(202);
    const { id } = started.body as { id: string };
    await before.waitForRun(id, (run) => run.status === 'running' && llm.requests.length === 1);

    second = await startTestApp(llmEnv(llm), { databaseUrl: first.databaseUrl });
    const after = new WorkflowApi(second.http, ADMIN_KEY);

    const run = await after.getRun(id);
    expect(run).toMatchObject({ status: 'failed', error: 'interrupted' });
    expect(run.nodes?.find((node) => node.node_id === 'llm-1')).toMatchObject({
      status: 'failed',
      error: 'interrupted',
    });
    const { events } = await readRunEvents(second.http, id, ADMIN_KEY);
    const names = events.map((message) => message.event);
    expect(names.slice(0, 2)).toEqual(['run.started', 'node.started']);
    expect(names.at(-1)).toBe('run.finished');
    expect(events.at(-1)?.data).toMatchObject({ status: 'failed', error: 'interrupted' });

    // The first app still holds the request; end it so nothing runs on after the test.
    await before.post(`/runs/${id}/cancel`).expect(200);
  });
});
