import { type OpenAITestServer, reply } from '../support/openai-test-server';
import { ADMIN_KEY, startTestApp, type TestApp } from '../support/test-app';
import { type ToolBackend } from '../support/tool-backend';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow, llmEnv } from '../support/workflow-fixtures';

type Message = { role: string; tool_call_id?: string; content?: string | null };

describe('Workflow agent loop against misbehaving providers (e2e)', () => {
  let stack: WorkflowStack | undefined;
  let app: TestApp;
  let llm: OpenAITestServer;
  let backend: ToolBackend;
  let api: WorkflowApi;

  beforeAll(async () => {
    // Two more providers on the same test server, with small limits: `tight` has a 300 ms budget per call,
    // `silent` retries once after 200 ms of silence.
    stack = await startWorkflowStack((server) => ({
      LLM_PROVIDERS: JSON.stringify({
        tight: { base_url: server.baseUrl, default_model: 'test-model', call_budget_ms: 300 },
        silent: { base_url: server.baseUrl, default_model: 'test-model', timeout_ms: 200, max_retries: 1 },
      }),
    }));
    ({ app, llm, backend } = stack);
    api = new WorkflowApi(app.http, ADMIN_KEY);
  });

  afterEach(() => {
    llm.reset();
    backend.hits.length = 0;
  });

  afterAll(async () => {
    await stack?.close();
  });

  describe('answers that are not an event stream', () => {
    it('should run the tool call of a provider that ignores stream: true and answer with its plain JSON', async () => {
      llm.script([
        reply.ignoringStream(
          reply.toolCalls([
            { name: 'http_request', id: 'call_json', arguments: { url: `${backend.origin}/weather?city=Lima` } },
          ]),
        ),
        reply.ignoringStream(reply.text('It is 21 °C in Lima.')),
      ]);

      const run = await api.run(agentWorkflow({ tools: ['http_request'] }), { question: 'Weather in Lima?' });

      expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'It is 21 °C in Lima.' } });
      expect(backend.hits).toEqual([expect.objectContaining({ path: '/weather', params: { city: 'Lima' } })]);
      const second = llm.requests[1].body as { messages: Message[] };
      expect(second.messages.filter((message) => message.role === 'tool')).toEqual([
        expect.objectContaining({ tool_call_id: 'call_json' }),
      ]);
      expect(run.usage).toMatchObject({ total_tokens: 30, model_calls: 2 });
      const node = (await api.getRun(run.id)).nodes?.find((candidate) => candidate.node_id === 'llm-1');
      expect(node?.tool_calls.map((call) => [call.call_id, call.status])).toEqual([['call_json', 'success']]);
    });

    it('should fail the run at once, naming the content type and the first bytes, on an HTML page with 200', async () => {
      llm.script([
        reply.body('<!DOCTYPE html><html><head><title>Welcome</title></head></html>', { contentType: 'text/html' }),
        reply.text('never'),
      ]);

      const run = await api.run(agentWorkflow({}));

      expect(run.status).toBe('failed');
      expect(run.error).toContain('llm-1');
      expect(run.error).toContain('text/html');
      expect(run.error).toContain('<!DOCTYPE html>');
      expect(llm.requests).toHaveLength(1);
    });

    it('should retry a stream cut off without finish_reason and [DONE], and answer with the whole retry', async () => {
      llm.script([reply.text('It is 2', { finishReason: null, done: false }), reply.text('It is 21 °C.')]);

      const run = await api.run(agentWorkflow({}));

      expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'It is 21 °C.' } });
      expect(llm.requests).toHaveLength(2);
    });
  });

  describe('hung providers', () => {
    const llmNode = async (runId: string) =>
      (await api.getRun(runId)).nodes?.find((candidate) => candidate.node_id === 'llm-1');

    it('should fail the node when its timeout_ms passes while the provider never answers', async () => {
      llm.script([reply.hang()]);

      const run = await api.run(agentWorkflow({ timeout_ms: 300 }));

      expect(run.status).toBe('failed');
      expect(run.error).toContain('llm-1');
      expect(run.error).toContain('limit of 300 ms (timeout_ms)');
      expect(llm.requests).toHaveLength(1);
      expect(await llmNode(run.id)).toMatchObject({ status: 'failed' });
    });

    it('should fail the node when the call budget of its provider runs out, after one attempt', async () => {
      llm.script([reply.hang(), reply.text('never')]);

      const run = await api.run(agentWorkflow({ provider: 'tight' }));

      expect(run.status).toBe('failed');
      expect(run.error).toContain('the LLM call budget of 300 ms ran out after 1 attempt');
      expect(llm.requests).toHaveLength(1);
    });

    it('should retry after the silence limit and fail when the retries are spent', async () => {
      llm.script([reply.hang(), reply.hang(), reply.text('never')]);

      const run = await api.run(agentWorkflow({ provider: 'silent' }));

      expect(run.status).toBe('failed');
      expect(run.error).toContain('provider sent nothing for 200 ms');
      expect(llm.requests).toHaveLength(2);
    });

    it('should retry a stream that falls silent midway and answer with the retry', async () => {
      llm.script([reply.text('It is sunny.', { stallAfterEvents: 2 }), reply.text('It is sunny.')]);

      const run = await api.run(agentWorkflow({ provider: 'silent' }));

      expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'It is sunny.' } });
      expect(llm.requests).toHaveLength(2);
    });

    describe('with LLM_NODE_TIMEOUT_MS', () => {
      let limited: TestApp;

      beforeAll(async () => {
        limited = await startTestApp(llmEnv(llm, { LLM_NODE_TIMEOUT_MS: '300' }));
      });

      afterAll(async () => {
        await limited.close();
      });

      it('should fail a node that sets no timeout_ms when the configured default passes', async () => {
        llm.script([reply.hang()]);

        const run = await new WorkflowApi(limited.http, ADMIN_KEY).run(agentWorkflow({}));

        expect(run.status).toBe('failed');
        expect(run.error).toContain('limit of 300 ms (LLM_NODE_TIMEOUT_MS)');
        expect(llm.requests).toHaveLength(1);
      });
    });
  });
});
