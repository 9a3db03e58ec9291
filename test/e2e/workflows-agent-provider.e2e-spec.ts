import { type OpenAITestServer, reply } from '../support/openai-test-server';
import { ADMIN_KEY, type TestApp } from '../support/test-app';
import { type ToolBackend } from '../support/tool-backend';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow } from '../support/workflow-fixtures';

type Message = { role: string; tool_call_id?: string; content?: string | null };

describe('Workflow agent loop against misbehaving providers (e2e)', () => {
  let stack: WorkflowStack | undefined;
  let app: TestApp;
  let llm: OpenAITestServer;
  let backend: ToolBackend;
  let api: WorkflowApi;

  beforeAll(async () => {
    stack = await startWorkflowStack();
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
});
