import { reply } from '../support/openai-test-server';
import { queryDatabase } from '../support/child-app';
import { readRunEvents } from '../support/sse';
import { ADMIN_KEY } from '../support/test-app';
import { restartFixture } from '../support/restart-fixture';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow } from '../support/workflow-fixtures';

// Two application starts in one test: on a loaded machine each can take well over ten seconds.
jest.setTimeout(120_000);

describe('Runs across a restart (e2e)', () => {
  const restart = restartFixture();

  it('should resume a run the stopped process handed back, on the next start, and finish it with one event log', async () => {
    const { llm, databaseUrl } = restart;
    llm.script([reply.text('Never delivered.', { delayMs: 60_000 }), reply.text('Answered after the restart.')]);
    const first = await restart.startFirst();
    const before = new WorkflowApi(first.http, ADMIN_KEY);
    const started = await before.runInline(agentWorkflow({}), { question: 'Hi?' }, false).expect(202);
    const { id } = started.body as { id: string };
    await before.waitForRun(id, (run) => run.status === 'running' && llm.requests.length === 1);

    await first.app.close();
    const [stored] = await queryDatabase<{ status: string; error: string | null }>(
      databaseUrl,
      'SELECT status, error FROM runs WHERE id = ?',
      [id],
    );
    expect(stored).toEqual({ status: 'running', error: null });

    const second = await restart.startSecond();
    const after = new WorkflowApi(second.http, ADMIN_KEY);
    const run = await after.waitForRun(id);

    expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'Answered after the restart.' } });
    expect(llm.requests).toHaveLength(2);
    // The resumed execution goes on with the node runs the first one left open: one per node.
    expect(run.nodes?.map((node) => [node.node_id, node.status])).toEqual([
      ['start', 'succeeded'],
      ['llm-1', 'succeeded'],
      ['end', 'succeeded'],
    ]);
    const { events } = await readRunEvents(second.http, id, ADMIN_KEY);
    const names = events.map((message) => message.event);
    expect(names.filter((name) => name === 'run.started')).toHaveLength(1);
    expect(names.at(-1)).toBe('run.finished');
    expect(events.map((message) => Number(message.id))).toEqual(events.map((_message, index) => index + 1));
    expect(events.at(-1)?.data).toMatchObject({ status: 'succeeded' });
  });
});
