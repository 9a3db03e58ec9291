import { reply } from '../support/openai-test-server';
import { pingStackFixture } from '../support/workflow-stack';
import type { RunBody } from '../support/workflow-api';
import { agentWorkflow } from '../support/workflow-fixtures';

const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

describe('Run budgets (e2e)', () => {
  const stack = pingStackFixture();

  const ping = (id: string) => reply.toolCalls([{ name: 'ping', id, arguments: { id } }], { usage: USAGE });
  const pings = () => stack.backend.hits.filter((hit) => hit.path === '/ping').map((hit) => hit.params.id) ?? [];
  const llmNode = (run: RunBody) => run.nodes?.find((node) => node.node_id === 'llm-1');

  it('should end a run whose tokens reach max_total_tokens (the request over the definition) with run_token_budget', async () => {
    stack.llm.script([ping('a'), ping('b'), reply.text('Never asked for.')]);
    const definition = agentWorkflow({ tools: ['ping'] }, { max_total_tokens: 1000, max_tool_calls: 50 });

    const response = await stack.api
      .post('/workflow-runs?wait=true', { definition, inputs: { question: 'Go' }, max_total_tokens: 30 })
      .expect(200);
    const run = await stack.api.getRun((response.body as RunBody).id);

    expect(run).toMatchObject({
      status: 'failed',
      stop_reason: 'run_token_budget',
      error: 'the run used 30 tokens, reaching its budget of 30 (max_total_tokens)',
      budgets: { max_total_tokens: 30, max_tool_calls: 50 },
      usage: { ...USAGE, total_tokens: 30, prompt_tokens: 20, completion_tokens: 10, model_calls: 2 },
    });
    // The call of the response that reached the budget never started; what the node did is kept.
    expect(pings()).toEqual(['a']);
    expect(stack.llm.requests).toHaveLength(2);
    expect(llmNode(run)).toMatchObject({
      status: 'failed',
      error: run.error,
      output: {
        usage: { total_tokens: 30, model_calls: 2 },
        tool_calls: [
          { id: 'a', status: 'success' },
          { id: 'b', status: 'skipped' },
        ],
      },
    });
  });

  it('should end a run with run_tool_call_budget instead of starting one call more than max_tool_calls', async () => {
    stack.backend.hits.splice(0);
    stack.llm.script([ping('c'), ping('d'), reply.text('Never asked for.')]);
    const created = await stack.api.post('/workflows', agentWorkflow({ tools: ['ping'] })).expect(201);
    const { id: workflowId } = created.body as { id: string };

    const response = await stack.api
      .post(`/workflows/${workflowId}/runs?wait=true`, { inputs: { question: 'Go' }, max_tool_calls: 1 })
      .expect(200);
    const run = await stack.api.getRun((response.body as RunBody).id);

    expect(run).toMatchObject({
      status: 'failed',
      stop_reason: 'run_tool_call_budget',
      error: 'the run used up its tool call budget: 1 calls (max_tool_calls)',
      budgets: { max_tool_calls: 1 },
      usage: { total_tokens: 30, model_calls: 2 },
    });
    expect(pings()).toEqual(['c']);
    expect(llmNode(run)?.output).toMatchObject({ tool_calls: [{ id: 'c', status: 'success' }, { id: 'd' }] });
  });

  it('should count a search_tools call against max_tool_calls like any call the model makes', async () => {
    stack.backend.hits.splice(0);
    stack.llm.script([
      reply.toolCalls([{ name: 'search_tools', id: 'find', arguments: { query: 'ping' } }], { usage: USAGE }),
      ping('f'),
      reply.text('Never asked for.'),
    ]);
    const definition = agentWorkflow({
      tools: ['ping', 'calculator', 'current_time'],
      tool_selection: { max_tools: 1, always: ['ping'] },
    });

    const response = await stack.api
      .post('/workflow-runs?wait=true', { definition, inputs: { question: 'Go' }, max_tool_calls: 1 })
      .expect(200);
    const run = await stack.api.getRun((response.body as RunBody).id);

    expect(run).toMatchObject({ status: 'failed', stop_reason: 'run_tool_call_budget' });
    expect(pings()).toEqual([]);
    expect(llmNode(run)?.output).toMatchObject({ tool_calls: [{ id: 'find', status: 'success' }, { id: 'f' }] });
  });

  it("should end a run that passes the definition's timeout_ms with run_timeout, keeping its usage", async () => {
    stack.llm.script([ping('e'), reply.hang()]);

    const run = await stack.api.run(agentWorkflow({ tools: ['ping'] }, { timeout_ms: 1500 }), { question: 'Go' });

    expect(run).toMatchObject({
      status: 'failed',
      stop_reason: 'run_timeout',
      error: 'the run reached its time limit of 1500 ms (timeout_ms)',
      usage: { ...USAGE, model_calls: 1 },
    });
    expect(llmNode(run)).toMatchObject({ status: 'failed', output: { tool_calls: [{ id: 'e', status: 'success' }] } });
  });

  it('should show stop_reason completed and no budgets on a run that ends normally', async () => {
    stack.llm.script([reply.text('Fine.', { usage: USAGE })]);

    const run = await stack.api.run(agentWorkflow({}), { question: 'Go' });

    expect(run).toMatchObject({ status: 'succeeded', stop_reason: 'completed', budgets: null });
  });

  it("should count a child workflow-tool run's tokens against its parent's budget", async () => {
    const child = agentWorkflow({}, { name: `budget-child-${Date.now().toString(36)}` });
    const created = await stack.api.post('/workflows', child).expect(201);
    await stack.api.createTool({
      name: 'ask_child',
      description: 'Asks the child workflow',
      function_schema: { type: 'function', function: { name: 'ask_child', description: 'Asks the child workflow' } },
      implementation_type: 'workflow',
      implementation_config: { workflow_id: (created.body as { id: string }).id },
      effect: 'read_only',
    });
    stack.llm.script([
      reply.toolCalls([{ name: 'ask_child', id: 'call_child', arguments: { question: 'Inner?' } }], { usage: USAGE }),
      reply.text('Inner answer.', { usage: { prompt_tokens: 90, completion_tokens: 10, total_tokens: 100 } }),
      reply.text('Never asked for.'),
    ]);

    const run = await stack.api.run(agentWorkflow({ tools: ['ask_child'] }, { max_total_tokens: 100 }), {
      question: 'Go',
    });

    expect(run).toMatchObject({
      status: 'failed',
      stop_reason: 'run_token_budget',
      usage: { total_tokens: 115, model_calls: 2 },
    });
    expect(stack.llm.requests).toHaveLength(2);
    const children = (await stack.api.get(`/runs?parent_run_id=${run.id}`).expect(200)).body as { items: RunBody[] };
    // The child was stopped by its parent's budget, not one of its own.
    expect(children.items).toMatchObject([
      { status: 'cancelled', stop_reason: 'cancelled', usage: { total_tokens: 100 } },
    ]);
  });

  it('should refuse bad budget values with 400 naming the field', async () => {
    const definition = agentWorkflow({});

    const inBody = await stack.api
      .post('/workflow-runs', { definition, inputs: { question: 'Go' }, max_total_tokens: 0, timeout_ms: 'soon' })
      .expect(400);
    const inDefinition = await stack.api
      .post('/workflow-runs', { definition: { ...definition, max_tool_calls: -1 }, inputs: { question: 'Go' } })
      .expect(400);
    const stored = await stack.api.post('/workflows/anything/runs', { max_tool_calls: 1.5 }).expect(400);

    expect((inBody.body as { errors: Array<{ field: string }> }).errors.map((problem) => problem.field).sort()).toEqual(
      ['max_total_tokens', 'timeout_ms'],
    );
    expect(inDefinition.body).toMatchObject({ errors: [{ field: 'definition.max_tool_calls' }] });
    expect(stored.body).toMatchObject({ errors: [{ field: 'max_tool_calls', message: 'must be integer' }] });
  });
});
