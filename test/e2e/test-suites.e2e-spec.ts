import { reply, type RecordedRequest } from '../support/openai-test-server';
import { pingStackFixture } from '../support/workflow-stack';
import { waitFor } from '../support/wait-for';
import { agentWorkflow, mapPingWorkflow } from '../support/workflow-fixtures';

type Message = { role: string; content?: string | null };
type CaseResult = {
  name: string;
  passed: boolean;
  run_id: string | null;
  assertions: Array<{ type: string; passed: boolean; actual: unknown }>;
  cost: { amount: number; currency: string } | null;
};
type TestRun = {
  id: string;
  status: string;
  summary: { cases: number; passed: number; failed: number; total_tokens: number; cost: unknown };
  results: CaseResult[];
  comparison: {
    previous_test_run_id: string;
    newly_failing: string[];
    newly_passing: string[];
    total_tokens_delta: number;
    cost_delta: unknown;
    cases: Array<{ name: string; cost_delta: unknown }>;
  } | null;
};

const question = (request: RecordedRequest): string => {
  const messages = request.body.messages as Message[];
  return String(messages.filter((message) => message.role === 'user').at(-1)?.content);
};

describe('Test suites and replay (e2e)', () => {
  const stack = pingStackFixture();

  /** A stored workflow of one LLM node; returns its id. */
  const storeWorkflow = async (llm: Record<string, unknown>): Promise<string> => {
    const response = await stack.api.post('/workflows', agentWorkflow(llm)).expect(201);
    return (response.body as { id: string }).id;
  };

  /** Each model call answers `Answer: <question>`, except for the questions in `wrong`. */
  const echoModel = (calls: number, wrong: readonly string[] = []) =>
    stack.llm.script(
      Array.from({ length: calls }, () =>
        reply.from((request) =>
          reply.text(wrong.includes(question(request)) ? 'I do not know.' : `Answer: ${question(request)}`),
        ),
      ),
    );

  /** GET …/test-runs/{id} until it is no longer running. */
  const endedTestRun = async (workflowId: string, testRunId: string): Promise<TestRun> => {
    let testRun: TestRun | undefined;
    await waitFor(
      async () => {
        testRun = (await stack.api.get(`/workflows/${workflowId}/test-runs/${testRunId}`).expect(200)).body as TestRun;
        return testRun.status !== 'running';
      },
      { what: `test run ${testRunId} ending` },
    );
    return testRun as TestRun;
  };

  it('should run a suite of 10 cases, store a result per case and compare with the previous test run', async () => {
    const workflowId = await storeWorkflow({});
    const cases = Array.from({ length: 10 }, (_, index) => ({
      name: `q${index + 1}`,
      inputs: { question: `q${index + 1}` },
      assertions: [
        { type: 'text_contains', value: `Answer: q${index + 1}` },
        { type: 'max_tool_calls', max: 0 },
        { type: 'stop_reason', equals: 'answered' },
      ],
    }));
    const jsonl = cases.map((testCase) => JSON.stringify(testCase)).join('\n');
    await stack.api.post(`/workflows/${workflowId}/tests`, { jsonl }).expect(201);
    const suite = await stack.api.get(`/workflows/${workflowId}/tests`).expect(200);
    expect((suite.body as { cases: unknown[] }).cases).toHaveLength(10);

    echoModel(10);
    // ?wait=true: answered once every case ended.
    const first = (await stack.api.post(`/workflows/${workflowId}/test-runs`, { concurrency: 3 }).expect(201))
      .body as TestRun;
    expect(first).toMatchObject({ status: 'passed', summary: { cases: 10, passed: 10, failed: 0 }, comparison: null });

    echoModel(10, ['q3', 'q7']);
    // Without wait: 202 `running`, followed until it ended.
    const started = await stack.api
      .post(`/workflows/${workflowId}/test-runs?wait=false`, { concurrency: 3 })
      .expect(202);
    expect(started.body).toMatchObject({ status: 'running', progress: { total: 10 } });
    expect(started.headers.location).toBe(`/api/v1/workflows/${workflowId}/test-runs/${(started.body as TestRun).id}`);
    const second = await endedTestRun(workflowId, (started.body as TestRun).id);

    expect(second).toMatchObject({ status: 'failed', summary: { cases: 10, passed: 8, failed: 2 } });
    expect(second.comparison).toMatchObject({
      previous_test_run_id: first.id,
      newly_failing: ['q3', 'q7'],
      newly_passing: [],
      total_tokens_delta: 0,
    });
    // The scripted model has no price: every cost is unknown (null), never a made-up 0, and so are the deltas.
    expect(second.results.map((result) => result.cost)).toEqual(Array.from({ length: 10 }, () => null));
    expect(second.summary.cost).toBeNull();
    expect(second.comparison?.cost_delta).toBeNull();
    expect(second.comparison?.cases.every((entry) => entry.cost_delta === null)).toBe(true);
    const failing = second.results.find((result) => result.name === 'q3');
    expect(failing?.assertions[0]).toEqual(
      expect.objectContaining({ type: 'text_contains', passed: false, actual: 'I do not know.' }),
    );
    const trace = await stack.api.getRun(failing?.run_id ?? '');
    expect(trace.outputs).toEqual({ answer: 'I do not know.' });

    const listed = await stack.api.get(`/workflows/${workflowId}/test-runs`).expect(200);
    expect((listed.body as TestRun[]).map((run) => run.id)).toEqual([second.id, first.id]);
    await stack.api.get(`/workflows/${workflowId}/test-runs/${first.id}`).expect(200);
  });

  it('should answer 202 at once and show the progress per case until the test run ends', async () => {
    const workflowId = await storeWorkflow({});
    const cases = ['p1', 'p2', 'p3'].map((name) => ({
      name,
      inputs: { question: name },
      assertions: [{ type: 'text_contains', value: `Answer: ${name}` }],
    }));
    await stack.api.put(`/workflows/${workflowId}/tests`, { cases }).expect(200);
    echoModel(3, ['p3']);
    const release = stack.llm.hold();

    const started = await stack.api
      .post(`/workflows/${workflowId}/test-runs?wait=false`, { concurrency: 1 })
      .expect(202);
    const testRunId = (started.body as TestRun).id;
    expect(started.body).toMatchObject({ status: 'running', progress: { done: 0, total: 3 }, results: [] });

    // The first case's model call is answered; the second's waits until the test lets it go.
    await waitFor(() => stack.llm.requests.length === 1, { what: 'the first case calling its model' });
    release();
    const releaseRest = stack.llm.hold();
    const path = `/workflows/${workflowId}/test-runs/${testRunId}`;
    await waitFor(async () => ((await stack.api.get(path).expect(200)).body as TestRun).results.length === 1, {
      what: 'the first case ending',
    });
    const midway = (await stack.api.get(path).expect(200)).body as TestRun & { progress: unknown };
    expect(midway).toMatchObject({
      status: 'running',
      progress: { done: 1, total: 3 },
      summary: { cases: 3, passed: 1, failed: 0 },
      results: [{ name: 'p1', passed: true }],
      finished_at: null,
    });

    releaseRest();
    const ended = await endedTestRun(workflowId, testRunId);
    expect(ended).toMatchObject({
      status: 'failed',
      progress: { done: 3, total: 3 },
      summary: { cases: 3, passed: 2, failed: 1 },
      results: [{ name: 'p1' }, { name: 'p2' }, { name: 'p3', passed: false }],
    });
  });

  it('should refuse an unknown assertion type and a bad test run body, naming the field, and a missing version', async () => {
    const workflowId = await storeWorkflow({});
    const response = await stack.api
      .put(`/workflows/${workflowId}/tests`, {
        cases: [{ name: 'a', inputs: { question: 'x' }, assertions: [{ type: 'text_is', value: 'x' }] }],
      })
      .expect(400);
    expect(JSON.stringify(response.body)).toContain('cases[0].assertions[0].type');
    await stack.api
      .put(`/workflows/${workflowId}/tests`, { cases: [{ name: 'a', inputs: { question: 'x' }, assertions: [] }] })
      .expect(200);
    const badBody = await stack.api.post(`/workflows/${workflowId}/test-runs`, { concurrency: 0 }).expect(400);
    expect(JSON.stringify(badBody.body)).toContain('concurrency');
    await stack.api.post(`/workflows/${workflowId}/test-runs`, { version: 99 }).expect(404);
    await stack.api.post(`/workflows/${workflowId}/test-runs?wait=true`, { cases: ['nope'] }).expect(400);
    const badWait = await stack.api.post(`/workflows/${workflowId}/test-runs?wait=maybe`, {}).expect(400);
    expect(JSON.stringify(badWait.body)).toContain('wait must be true or false');
  });

  it('should replay a run with no provider contacted, and report a divergence after a tool schema changed', async () => {
    const workflowId = await storeWorkflow({ tools: ['ping'] });
    stack.llm.script([reply.toolCalls([{ name: 'ping', id: 'call_p', arguments: { id: '7' } }]), reply.text('pong 7')]);
    const run = (
      await stack.api.post(`/workflows/${workflowId}/runs?wait=true`, { inputs: { question: 'Ping 7' } }).expect(200)
    ).body as { id: string; status: string };
    expect(run.status).toBe('succeeded');
    const modelCalls = stack.llm.requests.length;
    const backendHits = stack.backend.hits.length;

    // The script is empty: a model call would fail the replay.
    const live = await stack.api.post(`/runs/${run.id}/replay`, { tools: 'live' }).expect(200);
    expect(live.body).toMatchObject({
      reproduced: true,
      divergence: null,
      status: 'succeeded',
      outputs: { answer: 'pong 7' },
    });
    expect(stack.backend.hits.length).toBe(backendHits + 1);
    const recorded = await stack.api.post(`/runs/${run.id}/replay`, { tools: 'recorded' }).expect(200);
    expect(recorded.body).toMatchObject({ reproduced: true, divergence: null });
    expect(stack.backend.hits.length).toBe(backendHits + 1);
    expect(stack.llm.requests.length).toBe(modelCalls);

    await stack.api
      .patch('/tools/ping', {
        function_schema: {
          type: 'function',
          function: {
            name: 'ping',
            description: 'Test tool ping',
            parameters: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
          },
        },
      })
      .expect(200);
    const diverged = await stack.api.post(`/runs/${run.id}/replay`).expect(200);

    expect(diverged.body).toMatchObject({
      reproduced: false,
      status: 'failed',
      divergence: {
        kind: 'tools',
        node_id: 'llm-1',
        call_index: 0,
        tool: 'ping',
        path: 'parameters.properties.id.type',
        expected: 'string',
        actual: 'integer',
      },
    });
    expect(stack.llm.requests.length).toBe(modelCalls);

    const cassette = await stack.api.get(`/runs/${run.id}/cassette`).expect(200);
    expect(cassette.body).toMatchObject({ format: 'toolflow-cassette/1', run_id: run.id, exchanges: [{}, {}] });
  });

  it('should show a case whose cassette diverged at cost unknown (null), never 0', async () => {
    const workflow = agentWorkflow({ system: 'Answer in one short sentence.' });
    const workflowId = (await stack.api.post('/workflows', workflow).expect(201)).body.id as string;
    stack.llm.script([reply.text('Answer: Ping 7')]);
    const run = (
      await stack.api.post(`/workflows/${workflowId}/runs?wait=true`, { inputs: { question: 'Ping 7' } }).expect(200)
    ).body as { id: string; status: string };
    expect(run.status).toBe('succeeded');
    const cassette = (await stack.api.get(`/runs/${run.id}/cassette`).expect(200)).body as unknown;
    // The prompt changed since the recording: the replay's first model call leaves its cassette.
    const changed = agentWorkflow({ system: 'Answer in two short sentences.' }, { name: workflow.name });
    await stack.api.put(`/workflows/${workflowId}`, changed).expect(200);
    const testCase = { name: 'ping', inputs: { question: 'Ping 7' }, cassette, assertions: [] };
    await stack.api.post(`/workflows/${workflowId}/tests`, { jsonl: JSON.stringify(testCase) }).expect(201);
    const modelCalls = stack.llm.requests.length;

    const testRun = (await stack.api.post(`/workflows/${workflowId}/test-runs`, {}).expect(201)).body as TestRun & {
      results: Array<{ divergence: { description: string } | null }>;
    };

    expect(testRun.results[0]).toMatchObject({
      passed: false,
      divergence: { kind: 'message', message_index: 0, path: 'content', offset: 'Answer in '.length },
      cost: null,
    });
    expect(testRun.results[0].divergence?.description).toBe(
      'message 0 (system) differs at content: recorded "Answer in one short sentence.", ' +
        'replayed "Answer in two short sentences."',
    );
    expect(testRun.summary.cost).toBeNull();
    expect(stack.llm.requests.length).toBe(modelCalls);
  });

  it('should replay a run whose map node runs an LLM node per item, then report where a tool schema change diverges', async () => {
    // Items in turn (concurrency 1): item 0's model calls come before item 1's, in the recording and the replay.
    const created = await stack.api
      .post('/workflows', mapPingWorkflow(`map-replay-${Date.now().toString(36)}`, 1))
      .expect(201);
    const workflowId = (created.body as { id: string }).id;
    stack.llm.script([
      reply.toolCalls([{ name: 'ping', id: 'call_a', arguments: { id: '1' } }]),
      reply.text('pong 1'),
      reply.toolCalls([{ name: 'ping', id: 'call_b', arguments: { id: '2' } }]),
      reply.text('pong 2'),
    ]);
    const run = (
      await stack.api.post(`/workflows/${workflowId}/runs?wait=true`, { inputs: { ids: ['1', '2'] } }).expect(200)
    ).body as { id: string; status: string; outputs: unknown };
    expect(run).toMatchObject({
      status: 'succeeded',
      outputs: { answers: [{ answer: 'pong 1' }, { answer: 'pong 2' }] },
    });
    const modelCalls = stack.llm.requests.length;

    const replayed = await stack.api.post(`/runs/${run.id}/replay`, { tools: 'recorded' }).expect(200);
    expect(replayed.body).toMatchObject({
      reproduced: true,
      divergence: null,
      status: 'succeeded',
      outputs: { answers: [{ answer: 'pong 1' }, { answer: 'pong 2' }] },
    });
    expect(stack.llm.requests.length).toBe(modelCalls);

    await stack.api
      .patch('/tools/ping', {
        function_schema: {
          type: 'function',
          function: {
            name: 'ping',
            description: 'Test tool ping',
            parameters: { type: 'object', properties: { id: { type: 'boolean' } }, required: ['id'] },
          },
        },
      })
      .expect(200);
    const diverged = await stack.api.post(`/runs/${run.id}/replay`, { tools: 'recorded' }).expect(200);

    // The nested node's first model call of the first item: the tool list it was sent differs from the recording.
    expect(diverged.body).toMatchObject({
      reproduced: false,
      divergence: {
        kind: 'tools',
        node_id: 'ask',
        call_index: 0,
        tool: 'ping',
        path: 'parameters.properties.id.type',
        actual: 'boolean',
      },
    });
    expect(stack.llm.requests.length).toBe(modelCalls);
    process.stdout.write(`map replay divergence report: ${JSON.stringify(diverged.body, null, 2)}\n`);
  });

  it('should replay a run whose loop node runs an LLM node per iteration, offline, and diverge on a schema change', async () => {
    const created = await stack.api
      .post('/workflows', {
        name: `loop-replay-${Date.now().toString(36)}`,
        inputs: { type: 'object', properties: {} },
        nodes: [
          { id: 'start', type: 'start', data: {} },
          {
            id: 'again',
            type: 'loop',
            data: {
              max_iterations: 3,
              conditions: [{ left: '{{last.answer}}', op: 'not_equals', right: 'pong 2' }],
              nodes: [
                { id: 'step-start', type: 'start', data: {} },
                { id: 'step', type: 'llm', data: { prompt: 'Ping {{iteration}}', tools: ['ping'] } },
                { id: 'step-end', type: 'end', data: { outputs: { answer: '{{step.text}}' } } },
              ],
              edges: [
                { source: 'step-start', target: 'step' },
                { source: 'step', target: 'step-end' },
              ],
            },
          },
          { id: 'end', type: 'end', data: { outputs: { last: '{{again.output.answer}}', count: '{{again.count}}' } } },
        ],
        edges: [
          { source: 'start', target: 'again' },
          { source: 'again', target: 'end' },
        ],
      })
      .expect(201);
    const workflowId = (created.body as { id: string }).id;
    stack.llm.script([
      reply.toolCalls([{ name: 'ping', id: 'call_1', arguments: { id: '1' } }]),
      reply.text('pong 1'),
      reply.toolCalls([{ name: 'ping', id: 'call_2', arguments: { id: '2' } }]),
      reply.text('pong 2'),
    ]);
    const run = (await stack.api.post(`/workflows/${workflowId}/runs?wait=true`, { inputs: {} }).expect(200)).body as {
      id: string;
      status: string;
    };
    expect(run).toMatchObject({ status: 'succeeded', outputs: { last: 'pong 2', count: 2 } });
    const modelCalls = stack.llm.requests.length;

    const replayed = await stack.api.post(`/runs/${run.id}/replay`, { tools: 'recorded' }).expect(200);
    expect(replayed.body).toMatchObject({ reproduced: true, divergence: null, outputs: { last: 'pong 2', count: 2 } });

    await stack.api
      .patch('/tools/ping', {
        function_schema: {
          type: 'function',
          function: {
            name: 'ping',
            description: 'Test tool ping',
            parameters: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
          },
        },
      })
      .expect(200);
    const diverged = await stack.api.post(`/runs/${run.id}/replay`, { tools: 'recorded' }).expect(200);

    expect(diverged.body).toMatchObject({
      reproduced: false,
      divergence: { kind: 'tools', node_id: 'step', call_index: 0, tool: 'ping', actual: 'number' },
    });
    expect(stack.llm.requests.length).toBe(modelCalls);
  });
});
