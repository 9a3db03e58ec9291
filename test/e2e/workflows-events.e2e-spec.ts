import { type OpenAITestServer, reply } from '../support/openai-test-server';
import { readRunEvents, type SseMessage } from '../support/sse';
import { ADMIN_KEY, type TestApp } from '../support/test-app';
import { type ToolBackend } from '../support/tool-backend';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow, httpToolBody } from '../support/workflow-fixtures';

const deltas = (events: SseMessage[], type: string) =>
  events
    .filter((message) => message.event === type)
    .map((message) => message.data.delta as string)
    .join('');

/** Event names with consecutive repeats collapsed, so token streams read as one step. */
const outline = (events: SseMessage[]) =>
  events
    .map((message) =>
      typeof message.data.node_id === 'string' ? `${message.event}:${message.data.node_id}` : message.event,
    )
    .filter((name, index, names) => name !== names[index - 1]);

describe('Run events over SSE (e2e)', () => {
  let stack: WorkflowStack | undefined;
  let app: TestApp;
  let llm: OpenAITestServer;
  let backend: ToolBackend;
  let api: WorkflowApi;

  beforeAll(async () => {
    stack = await startWorkflowStack();
    ({ app, llm, backend } = stack);
    api = new WorkflowApi(app.http, ADMIN_KEY);
    await api.createTool(httpToolBody('lookup', `${backend.origin}/lookup?id={id}`));
  });

  afterEach(() => llm.reset());

  afterAll(async () => {
    await stack?.close();
  });

  const toolRound = () => [
    reply.toolCalls([{ name: 'lookup', id: 'call_1', arguments: { id: 'x1' } }], { chunkDelayMs: 5 }),
    reply.text('Found x1.', { chunkSize: 2, chunkDelayMs: 5 }),
  ];

  it('should stream the events of a running run in order, then end after run.finished', async () => {
    llm.script(toolRound());
    const started = await api.runInline(agentWorkflow({ tools: ['lookup'] }), { question: 'Find x1' }, false);
    expect(started.status).toBe(202);
    const { id } = started.body as { id: string };

    const live = await readRunEvents(app.http, id, ADMIN_KEY);

    expect(live.status).toBe(200);
    expect(live.contentType).toMatch(/^text\/event-stream/);
    expect(live.events.map((message) => message.id)).toEqual(live.events.map((_, index) => index + 1));
    expect(outline(live.events)).toEqual([
      'run.started',
      'node.started:start',
      'node.finished:start',
      'node.started:llm-1',
      'tool.call:llm-1',
      'tool.args.delta:llm-1',
      'llm.usage:llm-1',
      'llm.call:llm-1',
      'tool.result:llm-1',
      'llm.delta:llm-1',
      'llm.usage:llm-1',
      'llm.call:llm-1',
      'node.finished:llm-1',
      'node.started:end',
      'node.finished:end',
      'run.finished',
    ]);
    expect(live.events.find((message) => message.event === 'tool.call')?.data).toMatchObject({
      call_id: 'call_1',
      name: 'lookup',
    });
    expect(deltas(live.events, 'tool.args.delta')).toBe('{"id":"x1"}');
    expect(live.events.filter((message) => message.event === 'llm.usage').map((message) => message.data)).toEqual([
      expect.objectContaining({
        node_id: 'llm-1',
        iteration: 1,
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      }),
      expect.objectContaining({
        node_id: 'llm-1',
        iteration: 2,
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      }),
    ]);
    expect(live.events.find((message) => message.event === 'tool.result')?.data).toMatchObject({
      call_id: 'call_1',
      status: 'success',
    });
    expect(deltas(live.events, 'llm.delta')).toBe('Found x1.');
    expect(live.events.at(-1)?.data).toMatchObject({ status: 'succeeded', outputs: { answer: 'Found x1.' } });
  });

  it('should give a client that joins after the end every stored event, and resume after Last-Event-ID', async () => {
    llm.script(toolRound());
    const run = await api.run(agentWorkflow({ tools: ['lookup'] }), { question: 'Find x1' });

    const late = await readRunEvents(app.http, run.id, ADMIN_KEY);
    const resumed = await readRunEvents(app.http, run.id, ADMIN_KEY, { 'Last-Event-ID': '4' });

    expect(late.events[0].event).toBe('run.started');
    expect(late.events.at(-1)?.event).toBe('run.finished');
    expect(resumed.events).toEqual(late.events.slice(4));
  });

  it('should mask credentials the model writes into its arguments, in live and stored events and the run', async () => {
    const args = { id: 'x1', api_key: 'model-key-8888', url: 'https://h.test/?token=model-token-9999' };
    llm.script([reply.toolCalls([{ name: 'lookup', id: 'call_1', arguments: args }]), reply.text('Done.')]);
    const started = await api.runInline(agentWorkflow({ tools: ['lookup'] }), { question: 'Find x1' }, false);
    const { id } = started.body as { id: string };

    const live = await readRunEvents(app.http, id, ADMIN_KEY);
    const stored = await readRunEvents(app.http, id, ADMIN_KEY);
    const detail = await api.getRun(id);

    const masked = '{"id":"x1","api_key":"********","url":"https://h.test/?token=********"}';
    expect(deltas(live.events, 'tool.args.delta')).toBe(masked);
    for (const text of [JSON.stringify(live.events), JSON.stringify(stored.events), JSON.stringify(detail)]) {
      expect(text).not.toContain('model-key-8888');
      expect(text).not.toContain('model-token-9999');
    }
  });

  it('should answer 404 for the events of an unknown run', async () => {
    const response = await readRunEvents(app.http, '00000000-0000-4000-8000-000000000000', ADMIN_KEY);
    expect(response.status).toBe(404);
  });

  it('should announce a provider retry as llm.retry', async () => {
    llm.script([reply.error(503, 'overloaded', { headers: { 'retry-after': '0' } }), reply.text('Hi.')]);
    const run = await api.run(agentWorkflow({}));

    const { events } = await readRunEvents(app.http, run.id, ADMIN_KEY);
    expect(events.filter((message) => message.event === 'llm.retry').map((message) => message.data)).toEqual([
      expect.objectContaining({ node_id: 'llm-1', attempt: 1, reason: expect.stringContaining('overloaded') }),
    ]);
    expect(run.outputs).toEqual({ answer: 'Hi.' });
  });

  describe('streaming variations', () => {
    const lookups = () => backend.hits.filter((hit) => hit.path === '/lookup').map((hit) => hit.params.id);
    beforeEach(() => (backend.hits.length = 0));

    const runWith = async (first: ReturnType<typeof reply.toolCalls>, answer = 'ok') => {
      llm.script([first, reply.text(answer)]);
      const run = await api.run(agentWorkflow({ tools: ['lookup'] }));
      const { events } = await readRunEvents(app.http, run.id, ADMIN_KEY);
      return { run, events, sent: llm.requests.map((recorded) => recorded.body) };
    };

    it('should assemble arguments split at every byte, multi-byte characters included', async () => {
      const { run } = await runWith(
        reply.toolCalls([{ name: 'lookup', arguments: { id: '北京🌧' } }], { argsChunkSize: 1, bytesPerWrite: 5 }),
      );
      expect(run.status).toBe('succeeded');
      expect(lookups()).toEqual(['北京🌧']);
    });

    it('should tell interleaved parallel calls apart', async () => {
      const { sent } = await runWith(
        reply.toolCalls([
          { name: 'lookup', id: 'call_p', arguments: { id: 'p' } },
          { name: 'lookup', id: 'call_q', arguments: { id: 'q' } },
        ]),
      );
      expect([...lookups()].sort()).toEqual(['p', 'q']);
      const toolMessages = (sent[1].messages as Array<{ role: string; tool_call_id?: string; content: string }>).filter(
        (message) => message.role === 'tool',
      );
      expect(toolMessages.map((message) => message.tool_call_id)).toEqual(['call_p', 'call_q']);
      expect(toolMessages[1].content).toMatch(/"id":\s*"q"/);
    });

    it('should read calls without index, with empty continuation ids and names and no type', async () => {
      await runWith(
        reply.toolCalls([{ name: 'lookup', id: 'call_n', arguments: { id: 'n' } }], {
          omitIndex: true,
          emptyContinuation: true,
          omitType: true,
        }),
      );
      expect(lookups()).toEqual(['n']);
    });

    it('should run calls whose index starts at 1 and whose finish_reason is stop', async () => {
      await runWith(
        reply.toolCalls([{ name: 'lookup', arguments: { id: 's' } }], {
          indexBase: 1,
          finishReason: 'stop',
          finishWithLastFragment: true,
        }),
      );
      expect(lookups()).toEqual(['s']);
    });

    it('should count the usage sent in a final chunk without choices', async () => {
      llm.script([
        reply.toolCalls([{ name: 'lookup', arguments: { id: 'u' } }], {
          usage: { prompt_tokens: 100, completion_tokens: 7, total_tokens: 107 },
        }),
        reply.text('ok', { usage: { prompt_tokens: 120, completion_tokens: 3, total_tokens: 123 } }),
      ]);
      const run = await api.run(agentWorkflow({ tools: ['lookup'] }));
      expect(run.usage).toEqual({ prompt_tokens: 220, completion_tokens: 10, total_tokens: 230, model_calls: 2 });
    });

    it('should stream reasoning as llm.reasoning and keep it out of the answer', async () => {
      llm.script([reply.text('The answer is 4.', { reasoning: 'Two plus two is four.' })]);
      const run = await api.run(agentWorkflow({}));
      const { events } = await readRunEvents(app.http, run.id, ADMIN_KEY);

      expect(deltas(events, 'llm.reasoning')).toBe('Two plus two is four.');
      expect(deltas(events, 'llm.delta')).toBe('The answer is 4.');
      expect(run.outputs).toEqual({ answer: 'The answer is 4.' });
    });

    it('should tell the model about a call that never got a name and invent none', async () => {
      const { run, sent } = await runWith(reply.toolCalls([{ name: null, id: 'call_anon', arguments: { id: 'z' } }]));
      expect(run.status).toBe('succeeded');
      expect(lookups()).toEqual([]);
      const note = (sent[1].messages as Array<{ role: string; content: string }>).at(-1);
      expect(note).toMatchObject({ role: 'user' });
      expect(note?.content).toMatch(/malformed/);
    });

    it('should repair a call written as <tool_call> text', async () => {
      const text = '<tool_call>{"name": "lookup", "arguments": {"id": "t"}}</tool_call>';
      llm.script([reply.text(text), reply.text('Found t.')]);
      const run = await api.run(agentWorkflow({ tools: ['lookup'] }));
      expect(run.outputs).toEqual({ answer: 'Found t.' });
      expect(lookups()).toEqual(['t']);
    });

    it('should mark a tool.result whose arguments were repaired, and only that one', async () => {
      llm.script([
        reply.toolCalls([
          { name: 'lookup', id: 'call_broken', arguments: '{"id": "r1"' },
          { name: 'lookup', id: 'call_fine', arguments: '{"id": "r2"}' },
        ]),
        reply.text('Found both.'),
      ]);
      const started = await api.runInline(agentWorkflow({ tools: ['lookup'] }), { question: 'Find' }, false);

      const { events } = await readRunEvents(app.http, (started.body as { id: string }).id, ADMIN_KEY);

      const results = events.filter((message) => message.event === 'tool.result').map((message) => message.data);
      expect(results).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ call_id: 'call_broken', status: 'success', repaired: true }),
          expect.objectContaining({ call_id: 'call_fine', status: 'success' }),
        ]),
      );
      expect(results.find((result) => result.call_id === 'call_fine')).not.toHaveProperty('repaired');
    });
  });
});
