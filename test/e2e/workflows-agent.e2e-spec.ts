import { type OpenAITestServer, reply } from '../support/openai-test-server';
import { ADMIN_KEY, type TestApp } from '../support/test-app';
import { type ToolBackend } from '../support/tool-backend';
import { waitFor } from '../support/wait-for';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow, httpToolBody } from '../support/workflow-fixtures';

type Message = { role: string; tool_call_id?: string; content?: string | null; tool_calls?: Array<{ id: string }> };
type Body = { messages: Message[]; tools?: Array<{ function: { name: string } }>; tool_choice?: unknown };

describe('Workflow agent loop (e2e)', () => {
  let stack: WorkflowStack | undefined;
  let app: TestApp;
  let llm: OpenAITestServer;
  let backend: ToolBackend;
  let api: WorkflowApi;

  const bodies = () => llm.requests.map((recorded) => recorded.body as unknown as Body);
  const toolNames = (body: Body) => (body.tools ?? []).map((tool) => tool.function.name);
  const toolMessages = (body: Body) => body.messages.filter((message) => message.role === 'tool');

  beforeAll(async () => {
    stack = await startWorkflowStack();
    ({ app, llm, backend } = stack);
    api = new WorkflowApi(app.http, ADMIN_KEY);
  });

  afterEach(() => {
    backend.releaseAll();
    llm.reset();
    backend.hits.length = 0;
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('should answer the weather question with http_request against a local server', async () => {
    llm.script([
      reply.toolCalls([
        { name: 'http_request', id: 'call_w', arguments: { url: `${backend.origin}/weather?city=Berlin` } },
      ]),
      reply.text('It is 21 °C and sunny in Berlin.'),
    ]);
    const run = await api.run(agentWorkflow({ tools: ['http_request'], enable_tools: true }), {
      question: 'Weather in Berlin?',
    });

    expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'It is 21 °C and sunny in Berlin.' } });
    expect(backend.hits).toEqual([expect.objectContaining({ path: '/weather', params: { city: 'Berlin' } })]);
    const [first, second] = bodies();
    expect(toolNames(first)).toEqual(['http_request']);
    expect(toolNames(second)).toEqual(['http_request']);
    expect(toolMessages(second)).toEqual([expect.objectContaining({ tool_call_id: 'call_w' })]);
    expect(toolMessages(second)[0].content).toContain('"temp_c":21');
  });

  it('should show the node runs with their tool calls and the usage totals on GET /runs/:id', async () => {
    llm.script([
      reply.toolCalls([
        { name: 'http_request', id: 'call_w', arguments: { url: `${backend.origin}/weather?city=Oslo` } },
      ]),
      reply.text('Sunny.'),
    ]);
    const { id } = await api.run(agentWorkflow({ tools: ['http_request'] }));

    const run = await api.getRun(id);
    expect(run.usage).toEqual({ prompt_tokens: 20, completion_tokens: 10, total_tokens: 30, model_calls: 2 });
    expect(run.nodes?.map((node) => [node.node_id, node.status])).toEqual([
      ['start', 'succeeded'],
      ['llm-1', 'succeeded'],
      ['end', 'succeeded'],
    ]);
    const llmNode = run.nodes?.[1];
    expect(llmNode?.tool_calls).toEqual([
      expect.objectContaining({ call_id: 'call_w', tool_name: 'http_request', status: 'success' }),
    ]);
    expect(llmNode?.output).toMatchObject({
      output: 'Sunny.',
      stop_reason: 'answered',
      iterations_used: 1,
      usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30, model_calls: 2 },
    });
  });

  describe('tool calls', () => {
    const slowParameters = {
      type: 'object',
      properties: { id: { type: 'string' }, delay: { type: 'integer' } },
      required: ['id', 'delay'],
      additionalProperties: false,
    };

    beforeAll(async () => {
      await api.createTool(
        httpToolBody('lookup', `${backend.origin}/lookup?id={id}&delay={delay}`, { parameters: slowParameters }),
      );
      await api.createTool(
        httpToolBody('record', `${backend.origin}/record?id={id}&delay={delay}`, {
          parameters: slowParameters,
          effect: 'mutating',
        }),
      );
      await api.createTool(httpToolBody('stall', `${backend.origin}/stall?id={id}&delay=5000`, { timeoutMs: 200 }));
    });

    const threeCalls = (name: string) =>
      reply.toolCalls([
        { name, id: 'call_a', arguments: { id: 'a', delay: 0 } },
        { name, id: 'call_b', arguments: { id: 'b', delay: 0 } },
        { name, id: 'call_c', arguments: { id: 'c', delay: 0 } },
      ]);
    const answered = (id: string) => backend.hits.some((hit) => hit.params.id === id);

    it('should run read-only calls concurrently and answer them in call order', async () => {
      llm.script([threeCalls('lookup'), reply.text('Done.')]);
      backend.hold();
      const finished = api.run(agentWorkflow({ tools: ['lookup'] }));

      // All three wait at the backend at once only if they run concurrently; then they are answered in reverse.
      await waitFor(() => backend.held.length === 3, { what: 'all three lookups in flight at once' });
      for (const id of ['c', 'b', 'a']) {
        backend.release(id);
        await waitFor(() => answered(id), { what: `lookup ${id} answered` });
      }
      const run = await finished;

      expect(run.status).toBe('succeeded');
      expect(backend.hits.map((hit) => hit.params.id)).toEqual(['c', 'b', 'a']);
      expect(toolMessages(bodies()[1]).map((message) => message.tool_call_id)).toEqual(['call_a', 'call_b', 'call_c']);
      const node = (await api.getRun(run.id)).nodes?.find((candidate) => candidate.node_id === 'llm-1');
      expect(node?.tool_calls.map((call) => call.call_id)).toEqual(['call_a', 'call_b', 'call_c']);
    });

    it('should run calls of tools with side effects one at a time in call order', async () => {
      llm.script([threeCalls('record'), reply.text('Done.')]);
      backend.hold();
      const finished = api.run(agentWorkflow({ tools: ['record'] }));

      // Each call is held until the test releases it: a call that did not wait for the one before shows up as
      // arriving while another was still unanswered.
      for (const id of ['a', 'b', 'c']) {
        await waitFor(() => backend.held.includes(id), { what: `record ${id} arrived` });
        backend.release(id);
      }
      await finished;

      expect(backend.hits.map((hit) => hit.params.id)).toEqual(['a', 'b', 'c']);
      expect(backend.hits.map((hit) => hit.othersInFlight)).toEqual([0, 0, 0]);
      expect(toolMessages(bodies()[1]).map((message) => message.tool_call_id)).toEqual(['call_a', 'call_b', 'call_c']);
    });

    it('should send the tools on every iteration and force a final answer without tools at max_iterations', async () => {
      llm.script([
        reply.toolCalls([{ name: 'lookup', id: 'call_1', arguments: { id: '1', delay: 0 } }]),
        reply.toolCalls([{ name: 'lookup', id: 'call_2', arguments: { id: '2', delay: 0 } }]),
        reply.text('Best answer so far.'),
      ]);
      const run = await api.run(agentWorkflow({ tools: ['lookup'], max_iterations: 2 }));

      expect(run.outputs).toEqual({ answer: 'Best answer so far.' });
      expect(bodies().map(toolNames)).toEqual([['lookup'], ['lookup'], ['lookup']]);
      expect(bodies().map((body) => body.tool_choice)).toEqual([undefined, undefined, 'none']);
      expect(toolMessages(bodies()[2]).map((message) => message.tool_call_id)).toEqual(['call_1', 'call_2']);
      const node = (await api.getRun(run.id)).nodes?.find((candidate) => candidate.node_id === 'llm-1');
      expect(node?.output).toMatchObject({ stop_reason: 'max_iterations', iterations_used: 2 });
    });

    it('should fail the node at max_iterations when on_max_iterations is fail', async () => {
      llm.script([reply.toolCalls([{ name: 'lookup', arguments: { id: '1', delay: 0 } }])]);
      const run = await api.run(agentWorkflow({ tools: ['lookup'], max_iterations: 1, on_max_iterations: 'fail' }));

      expect(run.status).toBe('failed');
      expect(run.error).toMatch(/llm-1.*limit of 1 tool-using iterations/);
      expect(llm.requests).toHaveLength(1);
    });

    it('should tell the model about a tool name it made up and let it continue', async () => {
      llm.script([
        reply.toolCalls([{ name: 'lookupp', id: 'call_x', arguments: { id: '1', delay: 0 } }]),
        reply.text('Sorry, I could not look it up.'),
      ]);
      const run = await api.run(agentWorkflow({ tools: ['lookup'] }));

      expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'Sorry, I could not look it up.' } });
      const [message] = toolMessages(bodies()[1]);
      expect(message.tool_call_id).toBe('call_x');
      expect(message.content).toMatch(/lookupp/);
      expect(message.content).toMatch(/lookup/);
      expect(backend.hits).toHaveLength(0);
      const node = (await api.getRun(run.id)).nodes?.[1];
      expect(node?.tool_calls.map((call) => call.status)).toEqual(['not_found']);
    });

    it('should return invalid arguments to the model and run the corrected call', async () => {
      llm.script([
        reply.toolCalls([{ name: 'lookup', id: 'call_bad', arguments: { id: 'a' } }]),
        reply.toolCalls([{ name: 'lookup', id: 'call_good', arguments: { id: 'a', delay: 0 } }]),
        reply.text('Found a.'),
      ]);
      const run = await api.run(agentWorkflow({ tools: ['lookup'] }));

      expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'Found a.' } });
      const [invalid] = toolMessages(bodies()[1]);
      expect(invalid).toMatchObject({ tool_call_id: 'call_bad' });
      expect(invalid.content).toMatch(/delay/);
      expect(backend.hits.map((hit) => hit.params.id)).toEqual(['a']);
      const node = (await api.getRun(run.id)).nodes?.[1];
      expect(node?.tool_calls.map((call) => [call.call_id, call.status])).toEqual([
        ['call_bad', 'invalid_arguments'],
        ['call_good', 'success'],
      ]);
    });

    it('should give the model a timeout as the response of a tool that takes too long', async () => {
      llm.script([
        reply.toolCalls([{ name: 'stall', id: 'call_slow', arguments: { id: 's' } }]),
        reply.text('The service is slow right now.'),
      ]);
      const run = await api.run(agentWorkflow({ tools: ['stall'] }));

      expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'The service is slow right now.' } });
      const [message] = toolMessages(bodies()[1]);
      expect(message.tool_call_id).toBe('call_slow');
      expect(message.content).toMatch(/timed out|timeout/i);
      const node = (await api.getRun(run.id)).nodes?.[1];
      expect(node?.tool_calls.map((call) => call.status)).toEqual(['timeout']);
    });
  });

  describe('provider errors', () => {
    it('should retry a 429 and succeed', async () => {
      llm.script([reply.error(429, 'Rate limit reached', { headers: { 'retry-after': '0' } }), reply.text('Hello!')]);
      const run = await api.run(agentWorkflow({}));

      expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'Hello!' } });
      expect(llm.requests).toHaveLength(2);
    });

    it('should fail the run with the provider message on a 401 without retrying', async () => {
      llm.script([reply.error(401, 'Incorrect API key provided: sk-wrong')]);
      const run = await api.run(agentWorkflow({}));

      expect(run.status).toBe('failed');
      expect(run.error).toContain('Incorrect API key provided');
      expect(run.error).toContain('llm-1');
      expect(llm.requests).toHaveLength(1);
      const node = (await api.getRun(run.id)).nodes?.[1];
      expect(node).toMatchObject({ node_id: 'llm-1', status: 'failed' });
    });
  });

  it('should cancel a running run on POST /runs/:id/cancel', async () => {
    llm.script([reply.text('Too late.', { delayMs: 10_000 })]);
    const started = await api.runInline(agentWorkflow({}), { question: 'Hi?' }, false).expect(202);
    const { id } = started.body as { id: string };
    await api.waitForRun(id, (run) => run.nodes?.some((node) => node.node_id === 'llm-1') === true);

    const cancelled = await api.post(`/runs/${id}/cancel`).expect(200);

    expect(cancelled.body).toMatchObject({ id, status: 'cancelled' });
    const run = await api.getRun(id);
    expect(run.status).toBe('cancelled');
    expect(run.nodes?.find((node) => node.node_id === 'llm-1')?.status).toBe('cancelled');
    await api.post(`/runs/${id}/cancel`).expect(409);
  });
});
