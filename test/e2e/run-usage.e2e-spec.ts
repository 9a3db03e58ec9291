import { reply } from '../support/openai-test-server';
import { waitFor } from '../support/wait-for';
import { pingStackFixture } from '../support/workflow-stack';
import { agentWorkflow } from '../support/workflow-fixtures';

const PARENT_USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
const CHILD_USAGE = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };

describe('Usage of runs that fail, are cancelled, or call workflows (e2e)', () => {
  const stack = pingStackFixture();

  const pingCall = reply.toolCalls([{ name: 'ping', id: 'call_1', arguments: { id: 'a' } }], { usage: PARENT_USAGE });

  it('should keep the usage and partial output of a run whose model fails after a tool round', async () => {
    stack.llm.script([pingCall, reply.error(400, 'context window exceeded')]);

    const run = await stack.api.run(agentWorkflow({ tools: ['ping'] }), { question: 'Go' });

    expect(run.status).toBe('failed');
    expect(run.usage).toEqual({ ...PARENT_USAGE, model_calls: 1 });
    const node = run.nodes?.find((candidate) => candidate.node_id === 'llm-1');
    expect(node).toMatchObject({
      status: 'failed',
      output: { usage: { ...PARENT_USAGE, model_calls: 1 }, tool_calls: [{ id: 'call_1', status: 'success' }] },
    });
  });

  it('should keep the usage and partial output of a run cancelled while its model answers', async () => {
    stack.llm.script([pingCall, reply.text('Too late.', { delayMs: 10_000 })]);
    const started = await stack.api
      .runInline(agentWorkflow({ tools: ['ping'] }), { question: 'Go' }, false)
      .expect(202);
    const { id } = started.body as { id: string };
    await waitFor(() => stack.llm.requests.length === 2);

    await stack.api.post(`/runs/${id}/cancel`).expect(200);

    const run = await stack.api.waitForRun(id);
    expect(run.status).toBe('cancelled');
    expect(run.usage).toEqual({ ...PARENT_USAGE, model_calls: 1 });
    expect(run.nodes?.find((candidate) => candidate.node_id === 'llm-1')).toMatchObject({
      status: 'cancelled',
      output: { usage: { ...PARENT_USAGE, model_calls: 1 }, tool_calls: [{ id: 'call_1' }] },
    });
  });

  it("should add a child workflow-tool run's usage to its parent's, also when the child fails", async () => {
    const child = agentWorkflow({ tools: ['ping'] }, { name: `usage-child-${Date.now().toString(36)}` });
    const created = await stack.api.post('/workflows', child).expect(201);
    const childId = (created.body as { id: string }).id;
    await stack.api.createTool({
      name: 'ask_child',
      description: 'Asks the child workflow',
      function_schema: { type: 'function', function: { name: 'ask_child', description: 'Asks the child workflow' } },
      implementation_type: 'workflow',
      implementation_config: { workflow_id: childId },
      effect: 'read_only',
    });
    const call = (id: string) =>
      reply.toolCalls([{ name: 'ask_child', id, arguments: { question: 'Inner?' } }], { usage: PARENT_USAGE });
    stack.llm.script([
      call('call_ok'),
      reply.text('Inner answer.', { usage: CHILD_USAGE }),
      call('call_failing'),
      // The second child pings, then its model fails: the tokens of its first call still count.
      reply.toolCalls([{ name: 'ping', id: 'inner_1', arguments: { id: 'b' } }], { usage: CHILD_USAGE }),
      reply.error(400, 'the child model refuses'),
      reply.text('Done.', { usage: PARENT_USAGE }),
    ]);

    const run = await stack.api.run(agentWorkflow({ tools: ['ask_child'] }), { question: 'Go' });

    expect(run.status).toBe('succeeded');
    const children = (await stack.api.get(`/runs?parent_run_id=${run.id}`).expect(200)).body as {
      items: Array<{ status: string; usage: Record<string, number> }>;
    };
    expect(children.items.map((item) => item.status).sort()).toEqual(['failed', 'succeeded']);
    expect(run.usage).toEqual({
      prompt_tokens: 3 * PARENT_USAGE.prompt_tokens + 2 * CHILD_USAGE.prompt_tokens,
      completion_tokens: 3 * PARENT_USAGE.completion_tokens + 2 * CHILD_USAGE.completion_tokens,
      total_tokens: 3 * PARENT_USAGE.total_tokens + 2 * CHILD_USAGE.total_tokens,
      model_calls: 5,
    });
  });
});
