import request from 'supertest';
import { type OpenAITestServer, reply } from '../support/openai-test-server';
import { readRunEvents, type SseMessage } from '../support/sse';
import { ADMIN_KEY, bearer, type TestApp } from '../support/test-app';
import { type ToolBackend } from '../support/tool-backend';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow, httpToolBody } from '../support/workflow-fixtures';

const dataOf = (events: SseMessage[], type: string) =>
  events.filter((message) => message.event === type).map((message) => message.data);

/** A weak model's call written into its text, in each form the provider recovers (docs/providers.md, Repaired calls). */
const FORMS = [
  ['bare JSON', '{"name": "lookup", "arguments": {"id": "t1"}}', 'json_answer'],
  ['fenced JSON', '```json\n{"name": "lookup", "arguments": {"id": "t1"}}\n```', 'json_fence'],
  ['[TOOL_CALLS]', '[TOOL_CALLS] [{"name": "lookup", "arguments": {"id": "t1"}}]', 'tool_calls_list'],
  ['<tool_call>', '<tool_call>{"name": "lookup", "arguments": {"id": "t1"}}</tool_call>', 'tool_call_tag'],
] as const;

describe('Calls repaired from a weak model’s text (e2e)', () => {
  let stack: WorkflowStack | undefined;
  let app: TestApp;
  let llm: OpenAITestServer;
  let backend: ToolBackend;
  let api: WorkflowApi;
  let toolId: string;

  beforeAll(async () => {
    stack = await startWorkflowStack();
    ({ app, llm, backend } = stack);
    api = new WorkflowApi(app.http, ADMIN_KEY);
    toolId = ((await api.createTool(httpToolBody('lookup', `${backend.origin}/lookup?id={id}`))).body as { id: string })
      .id;
  });

  afterEach(() => {
    llm.reset();
    backend.hits.length = 0;
  });

  afterAll(async () => {
    await stack?.close();
  });

  it.each(FORMS)('should run a call written as %s as an ordinary call marked repaired', async (_form, text, kind) => {
    llm.script([reply.text(text, { chunkSize: 7 }), reply.text('Found t1.')]);

    const run = await api.run(agentWorkflow({ tools: ['lookup'] }), { question: 'Find t1' });

    expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'Found t1.' } });
    expect(backend.hits.map((hit) => hit.params.id)).toEqual(['t1']);

    const { events } = await readRunEvents(app.http, run.id, ADMIN_KEY);
    const [call] = dataOf(events, 'tool.call');
    expect(call).toMatchObject({ node_id: 'llm-1', name: 'lookup', repair: { kind } });
    const callId = call.call_id as string;
    expect(dataOf(events, 'tool.args.delta').map((delta) => delta.delta)).toEqual(['{"id":"t1"}']);
    expect(dataOf(events, 'tool.result')).toEqual([
      expect.objectContaining({ call_id: callId, status: 'success', repair: { kind } }),
    ]);
    // The model call that wrote the call says so, and that none of its streamed text is an answer.
    const [firstUsage, secondUsage] = dataOf(events, 'llm.usage');
    expect(firstUsage.repair).toEqual({ kind, call_ids: [callId], text: '' });
    expect(secondUsage).not.toHaveProperty('repair');
    expect(dataOf(events, 'llm.call')[0].repair).toEqual({ kind, call_ids: [callId], text: '' });
    // Order: the call is announced before its model call ends, like a streamed one.
    const order = events.map((message) => message.event);
    expect(order.indexOf('tool.call')).toBeLessThan(order.indexOf('llm.usage'));

    const node = (await api.getRun(run.id)).nodes?.find((candidate) => candidate.node_id === 'llm-1');
    expect(node?.tool_calls).toEqual([
      expect.objectContaining({ call_id: callId, tool_name: 'lookup', status: 'success', repair: { kind } }),
    ]);
    expect(node?.output).toMatchObject({ text: 'Found t1.' });
    expect((node?.output?.tool_calls as unknown[])[0]).toMatchObject({ id: callId, repair: { kind } });

    const logs = await request(app.http).get(`/api/v1/tools/${toolId}/logs`).set(bearer(ADMIN_KEY)).expect(200);
    const logged = (logs.body as { items: Array<Record<string, unknown>> }).items.find(
      (item) => item.run_id === run.id,
    );
    expect(logged).toMatchObject({ call_id: callId, status: 'success', repair: { kind } });
  });

  it('should mark a call whose argument JSON was repaired with kind arguments, and a clean call with none', async () => {
    llm.script([
      reply.toolCalls([
        { name: 'lookup', id: 'call_broken', arguments: '{"id": "r1"' },
        { name: 'lookup', id: 'call_fine', arguments: '{"id": "r2"}' },
      ]),
      reply.text('Found both.'),
    ]);

    const run = await api.run(agentWorkflow({ tools: ['lookup'] }), { question: 'Find' });

    const { events } = await readRunEvents(app.http, run.id, ADMIN_KEY);
    const results = dataOf(events, 'tool.result');
    expect(results.find((result) => result.call_id === 'call_broken')).toMatchObject({
      repaired: true,
      repair: { kind: 'arguments' },
    });
    expect(results.find((result) => result.call_id === 'call_fine')).not.toHaveProperty('repair');
    expect(dataOf(events, 'llm.usage')[0]).not.toHaveProperty('repair');
    const node = (await api.getRun(run.id)).nodes?.find((candidate) => candidate.node_id === 'llm-1');
    const calls = node?.tool_calls ?? [];
    expect(calls.find((call) => call.call_id === 'call_broken')).toMatchObject({ repair: { kind: 'arguments' } });
    expect(calls.find((call) => call.call_id === 'call_fine')).not.toHaveProperty('repair');
    // The node's output says it too.
    const outputCalls = node?.output?.tool_calls as Array<Record<string, unknown>>;
    expect(outputCalls.find((call) => call.id === 'call_broken')).toMatchObject({ repair: { kind: 'arguments' } });
    expect(outputCalls.find((call) => call.id === 'call_fine')).not.toHaveProperty('repair');
  });
});
