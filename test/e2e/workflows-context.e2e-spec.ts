import { type OpenAITestServer, reply } from '../support/openai-test-server';
import { ADMIN_KEY, type TestApp } from '../support/test-app';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow } from '../support/workflow-fixtures';

type Message = { role: string; tool_call_id?: string; content?: string | null };
type Body = { messages: Message[]; tools?: Array<{ function: { name: string } }> };

describe('LLM node context engineering (e2e)', () => {
  let stack: WorkflowStack | undefined;
  let app: TestApp;
  let llm: OpenAITestServer;
  let api: WorkflowApi;

  const bodies = () => llm.requests.map((recorded) => recorded.body as unknown as Body);
  const toolMessages = (body: Body) => body.messages.filter((message) => message.role === 'tool');

  beforeAll(async () => {
    stack = await startWorkflowStack();
    ({ app, llm } = stack);
    api = new WorkflowApi(app.http, ADMIN_KEY);
  });

  afterEach(() => llm.reset());

  afterAll(async () => {
    await stack?.close();
  });

  describe('weaker models', () => {
    it('should run calls a weaker model wrote as text, suggest a misspelt name and keep prose as the answer', async () => {
      const answer = 'It is 15. Next time call it like {"name": "calculator", "arguments": {}}.';
      llm.script([
        reply.text('```json\n{"name": "calculator", "arguments": {"expression": "7 + 8"}}\n```'),
        reply.toolCalls([{ name: 'calculater', id: 'call_typo', arguments: { expression: '1' } }]),
        reply.toolCalls([{ name: 'calculator', id: 'call_kw', arguments: 'calculator(expression="6 * 7")' }]),
        reply.text(answer),
      ]);
      const run = await api.run(agentWorkflow({ tools: ['calculator'] }), { question: 'What is 7 + 8?' });

      expect(run).toMatchObject({ status: 'succeeded', outputs: { answer } });
      expect(toolMessages(bodies()[1])[0].content).toBe('7 + 8 = 15');
      expect(toolMessages(bodies()[2])[1].content).toContain('Did you mean "calculator"?');
      expect(toolMessages(bodies()[3])[2].content).toBe('6 * 7 = 42');
      const node = (await api.getRun(run.id)).nodes?.find((candidate) => candidate.node_id === 'llm-1');
      expect(node?.tool_calls.map((call) => call.status)).toEqual(['success', 'not_found', 'success']);
    });
  });
});
