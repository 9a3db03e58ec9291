import { reply } from '../support/openai-test-server';
import { readRunEvents } from '../support/sse';
import { ADMIN_KEY } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { pingStackFixture } from '../support/workflow-stack';

/** start → (left: one node per entry of `left`) and (right: a ping tool node) → end, which joins both. */
const branches = (left: Array<Record<string, unknown>>) => ({
  name: `branches-${Date.now().toString(36)}`,
  nodes: [
    { id: 'start', type: 'start', data: {} },
    ...left,
    { id: 'right', type: 'tool', data: { tool: 'ping', arguments: { id: 'right' } } },
    {
      id: 'end',
      type: 'end',
      data: { outputs: { left: `{{${String(left[0].id)}.output}}`, right: '{{right.output}}' } },
    },
  ],
  edges: [
    { source: 'start', target: String(left[0].id) },
    { source: 'start', target: 'right' },
    { source: String(left[0].id), target: 'end' },
    { source: 'right', target: 'end' },
  ],
});

describe('Parallel branches (e2e)', () => {
  const stack = pingStackFixture();

  afterEach(() => stack.backend.releaseAll());

  it('should run two branches at once (both calls wait at the backend together) and join them in the end node', async () => {
    const backend = stack.backend;
    backend?.hold();
    const definition = branches([{ id: 'left', type: 'tool', data: { tool: 'ping', arguments: { id: 'left' } } }]);

    const started = await stack.api.post('/workflow-runs', { definition, inputs: {} }).expect(202);
    const { id } = started.body as { id: string };
    // Sequentially the second call would start only after the first answered: both held at once proves overlap.
    await waitFor(() => (backend?.held.length ?? 0) === 2);
    expect([...(backend?.held ?? [])].sort()).toEqual(['left', 'right']);
    backend?.releaseAll();
    const run = await stack.api.waitForRun(id);

    expect(run).toMatchObject({ status: 'succeeded', stop_reason: 'completed' });
    expect(String(run.outputs?.left)).toContain('left');
    expect(String(run.outputs?.right)).toContain('right');
    const { events } = await readRunEvents(stack.app.http, id, ADMIN_KEY);
    const lifecycle = events
      .filter((message) => message.event === 'node.started' || message.event === 'node.finished')
      .map((message) => `${message.event}:${String((message.data as { node_id: string }).node_id)}`);
    // The end node (the join) starts only after both branches finished.
    const endStart = lifecycle.indexOf('node.started:end');
    expect(endStart).toBeGreaterThan(lifecycle.indexOf('node.finished:left'));
    expect(endStart).toBeGreaterThan(lifecycle.indexOf('node.finished:right'));
    expect(lifecycle.indexOf('node.started:right')).toBeLessThan(lifecycle.indexOf('node.finished:left'));
  });

  it('should stop the other branch with a clear error when one branch fails', async () => {
    const backend = stack.backend;
    backend?.hold();
    stack.llm.script([reply.error(400, 'the model refuses')]);
    const definition = branches([{ id: 'llm-1', type: 'llm', data: { prompt: 'Hi?' } }]);

    const started = await stack.api.post('/workflow-runs', { definition, inputs: {} }).expect(202);
    const { id } = started.body as { id: string };
    const run = await stack.api.waitForRun(id);

    expect(run).toMatchObject({
      status: 'failed',
      stop_reason: 'error',
      error: expect.stringContaining('node "llm-1" (llm) failed') as string,
    });
    const byNode = new Map(run.nodes?.map((node) => [node.node_id, node]));
    expect(byNode.get('llm-1')).toMatchObject({ status: 'failed' });
    expect(byNode.get('right')).toMatchObject({
      status: 'cancelled',
      error: 'stopped because node "llm-1" failed on another branch',
    });
    expect(byNode.has('end')).toBe(false);
  });
});
