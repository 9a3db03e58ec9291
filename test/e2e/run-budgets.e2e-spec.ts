import { reply } from '../support/openai-test-server';
import { readRunEvents } from '../support/sse';
import { ADMIN_KEY } from '../support/test-app';
import { pingStackFixture } from '../support/workflow-stack';
import type { RunBody } from '../support/workflow-api';
import { agentWorkflow } from '../support/workflow-fixtures';

const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

describe('Run budgets (e2e)', () => {
  const stack = pingStackFixture();

  const ping = (id: string) => reply.toolCalls([{ name: 'ping', id, arguments: { id } }], { usage: USAGE });
  const pings = () => stack.backend.hits.filter((hit) => hit.path === '/ping').map((hit) => hit.params.id) ?? [];
  const llmNode = (run: RunBody) => run.nodes?.find((node) => node.node_id === 'llm-1');
  /** A read-only workflow tool `name` that runs a stored one-LLM-node workflow of its own. */
  const childWorkflowTool = async (name: string, description: string) => {
    const child = agentWorkflow({}, { name: `budget-${name}-${Date.now().toString(36)}` });
    const created = await stack.api.post('/workflows', child).expect(201);
    await stack.api.createTool({
      name,
      description,
      function_schema: { type: 'function', function: { name, description } },
      implementation_type: 'workflow',
      implementation_config: { workflow_id: (created.body as { id: string }).id },
      effect: 'read_only',
    });
  };

  it('should end a run whose tokens reach max_total_tokens (the request over the definition) with run_token_budget', async () => {
    const big = { prompt_tokens: 400, completion_tokens: 100, total_tokens: 500 };
    stack.llm.script([
      reply.toolCalls([{ name: 'ping', id: 'a', arguments: { id: 'a' } }], { usage: big }),
      reply.toolCalls([{ name: 'ping', id: 'b', arguments: { id: 'b' } }], { usage: big }),
      reply.text('Never asked for.'),
    ]);
    const definition = agentWorkflow({ tools: ['ping'] }, { max_total_tokens: 100_000, max_tool_calls: 50 });

    const response = await stack.api
      .post('/workflow-runs?wait=true', { definition, inputs: { question: 'Go' }, max_total_tokens: 1000 })
      .expect(200);
    const run = await stack.api.getRun((response.body as RunBody).id);

    expect(run).toMatchObject({
      status: 'failed',
      stop_reason: 'run_token_budget',
      error: 'the run used 1000 tokens, reaching its budget of 1000 (max_total_tokens)',
      budgets: { max_total_tokens: 1000, max_tool_calls: 50 },
      usage: { total_tokens: 1000, prompt_tokens: 800, completion_tokens: 200, model_calls: 2 },
    });
    // The call of the response that reached the budget never started; what the node did is kept.
    expect(pings()).toEqual(['a']);
    expect(stack.llm.requests).toHaveLength(2);
    expect(llmNode(run)).toMatchObject({
      status: 'failed',
      error: run.error,
      output: {
        usage: { total_tokens: 1000, model_calls: 2 },
        tool_calls: [
          { id: 'a', status: 'success' },
          { id: 'b', status: 'skipped' },
        ],
      },
    });
  });

  it("should cap each model call's max_tokens to what the run's budget leaves after its prompt", async () => {
    stack.llm.script([
      reply.toolCalls([{ name: 'ping', id: 'cap', arguments: { id: 'cap' } }], {
        usage: { prompt_tokens: 400, completion_tokens: 100, total_tokens: 500 },
      }),
      reply.text('Done.', { usage: USAGE }),
    ]);

    const run = await stack.api.run(agentWorkflow({ tools: ['ping'] }, { max_total_tokens: 1000 }), {
      question: 'Go',
    });

    expect(run).toMatchObject({ status: 'succeeded', usage: { total_tokens: 515 } });
    // test-model is no reasoning model: Chat Completions sends max_tokens. Each cap is what is left minus the
    // prompt's estimate (tens of tokens here), so prompt and answer together stay within the budget.
    const [first, second] = stack.llm.requests.map((request) => request.body);
    expect(first.max_completion_tokens).toBeUndefined();
    expect(first.max_tokens).toBeGreaterThan(1000 - 200);
    expect(first.max_tokens).toBeLessThan(1000 - 32);
    expect(second.max_tokens).toBeGreaterThan(500 - 300);
    expect(second.max_tokens).toBeLessThan(500 - 32);
  });

  it("should send a reasoning model's cap as max_completion_tokens, the node's smaller max_tokens winning", async () => {
    stack.llm.script([reply.text('Done.', { usage: USAGE }), reply.text('Done.', { usage: USAGE })]);

    const capped = await stack.api.run(agentWorkflow({ model: 'o4-mini' }, { max_total_tokens: 1000 }), {
      question: 'Go',
    });
    const small = await stack.api.run(agentWorkflow({ max_tokens: 50 }, { max_total_tokens: 1000 }), {
      question: 'Go',
    });

    expect([capped.status, small.status]).toEqual(['succeeded', 'succeeded']);
    const [reasoning, node] = stack.llm.requests.slice(-2).map((request) => request.body);
    expect(reasoning.max_tokens).toBeUndefined();
    // No tools: the prompt ("Go") is a few tokens.
    expect(reasoning.max_completion_tokens).toBeGreaterThan(1000 - 100);
    expect(reasoning.max_completion_tokens).toBeLessThan(1000);
    expect(node.max_tokens).toBe(50);
  });

  it('should end a run with run_token_budget, without calling the model, when what is left cannot hold the next prompt', async () => {
    stack.backend.hits.splice(0);
    stack.llm.script([
      reply.toolCalls([{ name: 'ping', id: 'last', arguments: { id: 'last' } }], {
        usage: { prompt_tokens: 900, completion_tokens: 60, total_tokens: 960 },
      }),
      reply.text('Never asked for.'),
    ]);

    const run = await stack.api.run(agentWorkflow({ tools: ['ping'] }, { max_total_tokens: 1000 }), {
      question: 'Go',
    });

    expect(run).toMatchObject({
      status: 'failed',
      stop_reason: 'run_token_budget',
      usage: { total_tokens: 960, model_calls: 1 },
    });
    expect(run.error).toMatch(
      /^the next model call does not fit the run's budget of 1000 tokens \(max_total_tokens\): its prompt alone needs about \d+ tokens, plus at least 32 for an answer, and 40 are left$/,
    );
    expect(stack.llm.requests).toHaveLength(1);
    expect(pings()).toEqual(['last']);
    expect(llmNode(run)).toMatchObject({
      status: 'failed',
      output: { tool_calls: [{ id: 'last', status: 'success' }] },
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

  it("should log and event a tool call cut by the run's timeout_ms as stopped by the run's time limit", async () => {
    stack.llm.script([ping('cut')]);
    stack.backend.hold();
    try {
      const run = await stack.api.run(agentWorkflow({ tools: ['ping'] }, { timeout_ms: 1500 }), { question: 'Go' });

      expect(run).toMatchObject({ status: 'failed', stop_reason: 'run_timeout' });
      const timeLimit = /the run reached its time limit of 1500 ms \(timeout_ms\)/;
      const logs = (await stack.api.get('/tools/ping/logs').expect(200)).body as {
        items: Array<{ run_id: string; call_id: string; status: string; error_message: string | null }>;
      };
      const log = logs.items.find((item) => item.run_id === run.id && item.call_id === 'cut');
      expect(log?.error_message).toMatch(timeLimit);
      const { events } = await readRunEvents(stack.app.http, run.id, ADMIN_KEY);
      const result = events.find((event) => event.event === 'tool.result');
      expect(result?.data).toMatchObject({ call_id: 'cut', name: 'ping', response: expect.stringMatching(timeLimit) });
    } finally {
      stack.backend.releaseAll();
    }
  });

  it('should show stop_reason completed and no budgets on a run that ends normally', async () => {
    stack.llm.script([reply.text('Fine.', { usage: USAGE })]);

    const run = await stack.api.run(agentWorkflow({}), { question: 'Go' });

    expect(run).toMatchObject({ status: 'succeeded', stop_reason: 'completed', budgets: null });
  });

  it("should count a child workflow-tool run's tokens against its parent's budget", async () => {
    await childWorkflowTool('ask_child', 'Asks the child workflow');
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

  it("should end the parent run with run_token_budget, not calling the model, when a child's call does not fit its budget", async () => {
    await childWorkflowTool('ask_inner', 'Asks the inner workflow');
    stack.llm.script([
      reply.toolCalls([{ name: 'ask_inner', id: 'call_inner', arguments: { question: 'Inner?' } }], {
        usage: { prompt_tokens: 900, completion_tokens: 70, total_tokens: 970 },
      }),
      reply.text('Never asked for.'),
      reply.text('Never asked for either.'),
    ]);

    const run = await stack.api.run(agentWorkflow({ tools: ['ask_inner'] }, { max_total_tokens: 1000 }), {
      question: 'Go',
    });

    expect(run).toMatchObject({
      status: 'failed',
      stop_reason: 'run_token_budget',
      usage: { total_tokens: 970, model_calls: 1 },
    });
    expect(run.error).toMatch(/^the next model call does not fit the run's budget of 1000 tokens .* and 30 are left$/);
    expect(stack.llm.requests).toHaveLength(1);
    const children = (await stack.api.get(`/runs?parent_run_id=${run.id}`).expect(200)).body as { items: RunBody[] };
    expect(children.items).toMatchObject([{ status: 'cancelled', usage: { total_tokens: 0 } }]);
  });

  it('should end an LLM node with budget_tokens, not calling the model, when its own max_total_tokens cannot hold the prompt', async () => {
    stack.llm.script([reply.text('Never asked for.', { usage: USAGE })]);

    const run = await stack.api.run(agentWorkflow({ max_total_tokens: 20 }), { question: 'Go' });

    expect(stack.llm.requests).toHaveLength(0);
    expect(run).toMatchObject({ status: 'succeeded', usage: { total_tokens: 0 } });
    expect(llmNode(run)).toMatchObject({
      status: 'succeeded',
      output: { stop_reason: 'budget_tokens', usage: { model_calls: 0 } },
    });
    expect(llmNode(run)?.output?.output).toMatch(
      /^No final answer was produced: .* The next model call does not fit the node's budget of 20 tokens \(max_total_tokens\): its prompt alone needs about \d+ tokens/,
    );
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
