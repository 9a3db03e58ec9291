import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROTOCOL_KITS, type KitServer, type ProtocolKit } from '../support/protocol-kits';
import { readRunEvents } from '../support/sse';
import { ADMIN_KEY, type TestApp } from '../support/test-app';
import { type ToolBackend } from '../support/tool-backend';
import { agentWorkflow } from '../support/workflow-fixtures';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';
import { WorkflowApi } from '../support/workflow-api';

describe.each(PROTOCOL_KITS.map((kit) => [kit.protocol, kit] as const))(
  'LLM nodes on the %s protocol (e2e)',
  (_protocol, kit: ProtocolKit) => {
    let stack: WorkflowStack | undefined;
    let server: KitServer;
    let app: TestApp;
    let backend: ToolBackend;
    let api: WorkflowApi;

    beforeAll(async () => {
      server = await kit.start();
      stack = await startWorkflowStack(() => ({
        LLM_PROVIDERS: JSON.stringify({
          main: { protocol: kit.protocol, base_url: server.baseUrl, api_key: 'test-key', default_model: 'test-model' },
          once: {
            protocol: kit.protocol,
            base_url: server.baseUrl,
            api_key: 'test-key',
            default_model: 'test-model',
            max_retries: 0,
          },
        }),
      }));
      ({ app, backend } = stack);
      api = new WorkflowApi(app.http, ADMIN_KEY);
    });

    afterEach(() => {
      server.reset();
      backend.hits.length = 0;
    });

    afterAll(async () => {
      await stack?.close();
      await server.close();
    });

    const weatherUrl = (city: string) => `${backend.origin}/weather?city=${city}`;
    const workflow = (data: Record<string, unknown> = {}) =>
      agentWorkflow({ provider: 'main', tools: ['http_request'], ...data });
    const llmNode = async (runId: string) =>
      (await api.getRun(runId)).nodes?.find((candidate) => candidate.node_id === 'llm-1');

    it('should call a tool, send its result back under the call id and answer', async () => {
      server.script([
        kit.toolCalls([{ id: 'call_0', name: 'http_request', input: { url: weatherUrl('Paris') } }]),
        kit.text('It is 21 °C in Paris.'),
      ]);

      const run = await api.run(workflow(), { question: 'Weather in Paris?' });

      expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'It is 21 °C in Paris.' } });
      expect(backend.hits.map((hit) => hit.params.city)).toEqual(['Paris']);
      const results = kit.toolResults(server.requests[1]);
      expect(results.map((result) => result.id)).toEqual(['call_0']);
      expect(results[0].content).toContain('21');
      const node = await llmNode(run.id);
      expect(node?.tool_calls.map((call) => [call.call_id, call.tool_name, call.status])).toEqual([
        ['call_0', 'http_request', 'success'],
      ]);
      expect(JSON.parse(node?.tool_calls[0].input ?? '{}')).toEqual({ url: weatherUrl('Paris') });
    });

    it('should run two parallel calls and answer both ids in call order', async () => {
      server.script([
        kit.toolCalls([
          { id: 'call_0', name: 'http_request', input: { url: weatherUrl('Rome') } },
          { id: 'call_1', name: 'http_request', input: { url: weatherUrl('Oslo') } },
        ]),
        kit.text('Rome is warmer.'),
      ]);

      const run = await api.run(workflow());

      expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'Rome is warmer.' } });
      expect(backend.hits.map((hit) => hit.params.city).sort()).toEqual(['Oslo', 'Rome']);
      expect(kit.toolResults(server.requests[1]).map((result) => result.id)).toEqual(['call_0', 'call_1']);
      expect((await llmNode(run.id))?.tool_calls.map((call) => call.call_id)).toEqual(['call_0', 'call_1']);
    });

    it('should carry the reasoning back on the next request and report it as events and node output', async () => {
      const reasoning = 'The user wants the weather; fetch it.';
      server.script([
        kit.toolCalls([{ id: 'call_0', name: 'http_request', input: { url: weatherUrl('Lima') } }], reasoning),
        kit.text('Lima: 21 °C.'),
      ]);

      const run = await api.run(workflow({ reasoning_effort: 'low' }));

      expect(run.status).toBe('succeeded');
      expect(kit.carriedReasoning(server.requests[1])).toEqual(kit.expectedReasoning(reasoning));
      expect((await llmNode(run.id))?.output).toMatchObject({ reasoning });
      const { events } = await readRunEvents(app.http, run.id, ADMIN_KEY);
      const deltas = events.filter((event) => event.event === 'llm.reasoning');
      expect(deltas.every((event) => event.data.node_id === 'llm-1')).toBe(true);
      expect(deltas.map((event) => event.data.delta).join('')).toBe(reasoning);
    });

    it("should fail the node with the provider's own message on an error in the middle of the stream", async () => {
      server.script([kit.failsMidStream('Overloaded right now')]);

      const run = await api.run(workflow({ provider: 'once' }));

      expect(run.status).toBe('failed');
      expect(run.error).toContain(kit.midStreamFailure('Overloaded right now'));
      expect((await llmNode(run.id))?.status).toBe('failed');
    });

    it('should retry a 429 and then succeed', async () => {
      server.script([kit.rateLimited(), kit.text('Fine after all.')]);

      const run = await api.run(workflow());

      expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'Fine after all.' } });
      expect(server.requests).toHaveLength(2);
    });

    it('should end the node with stop_reason max_tokens when the API cut the answer at its output limit', async () => {
      server.script([kit.cutAtLimit('The forecast for tomorrow is')]);

      const run = await api.run(workflow({ tools: [] }));

      expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'The forecast for tomorrow is' } });
      expect((await llmNode(run.id))?.output).toMatchObject({ stop_reason: 'max_tokens' });
    });

    it('should run a call with an empty input', async () => {
      server.script([kit.toolCalls([{ id: 'call_0', name: 'current_time', input: '' }]), kit.text('It is noon.')]);

      const run = await api.run(workflow({ tools: ['current_time'] }));

      expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'It is noon.' } });
      const node = await llmNode(run.id);
      expect(node?.tool_calls.map((call) => [call.input, call.status])).toEqual([[kit.emptyInput, 'success']]);
    });

    it('should show the usage of every model call on the run, as the API reports it', async () => {
      server.script([
        kit.toolCalls([{ id: 'call_0', name: 'http_request', input: { url: weatherUrl('Kyiv') } }]),
        kit.text('Done.'),
        kit.text('Done again.'),
      ]);

      const first = await api.run(workflow());
      const second = await api.run(workflow({ tools: [] }));

      const one = kit.textUsage;
      expect(second.usage).toEqual({
        prompt_tokens: one.prompt_tokens,
        completion_tokens: one.completion_tokens,
        total_tokens: one.prompt_tokens + one.completion_tokens,
        model_calls: 1,
      });
      expect(first.usage.model_calls).toBe(2);
      expect(first.usage.completion_tokens).toBeGreaterThanOrEqual(one.completion_tokens);
    });
  },
);

describe('examples/weather.json on every protocol (e2e)', () => {
  let stack: WorkflowStack | undefined;
  let api: WorkflowApi;
  let backend: ToolBackend;
  const servers = new Map<string, KitServer>();

  beforeAll(async () => {
    for (const kit of PROTOCOL_KITS) servers.set(kit.protocol, await kit.start());
    stack = await startWorkflowStack(() => ({
      LLM_PROVIDERS: JSON.stringify(
        Object.fromEntries(
          [...servers].map(([protocol, server]) => [protocol, { protocol, base_url: server.baseUrl, api_key: 'k' }]),
        ),
      ),
    }));
    backend = stack.backend;
    api = new WorkflowApi(stack.app.http, ADMIN_KEY);
  });

  afterAll(async () => {
    await stack?.close();
    for (const server of servers.values()) await server.close();
  });

  const example = () =>
    JSON.parse(readFileSync(join(__dirname, '..', '..', 'examples', 'weather.json'), 'utf8')) as {
      nodes: Array<{ id: string; data: Record<string, unknown> }>;
    };

  it.each(PROTOCOL_KITS.map((kit) => [kit.protocol, kit] as const))(
    'should run unchanged but for its provider on %s',
    async (protocol, kit) => {
      const server = servers.get(protocol) as KitServer;
      server.script([
        kit.toolCalls([
          { id: 'call_0', name: 'http_request', input: { url: `${backend.origin}/weather?city=Beijing` } },
        ]),
        kit.text('Beijing: 21 °C, sunny.'),
      ]);
      const workflow = example();
      workflow.nodes[1].data.provider = protocol;

      const run = await api.runInline(workflow, { question: '北京天气？' }).expect(200);

      expect(run.body).toMatchObject({ status: 'succeeded', outputs: { answer: 'Beijing: 21 °C, sunny.' } });
      expect(server.requests[0].body).toMatchObject({ model: 'gpt-4o' });
      expect(kit.toolResults(server.requests[1]).map((result) => result.id)).toEqual(['call_0']);
    },
  );
});
