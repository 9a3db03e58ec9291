import { type OpenAITestServer, reply } from '../support/openai-test-server';
import { ADMIN_KEY, type TestApp } from '../support/test-app';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow } from '../support/workflow-fixtures';

const CUSTOMERS_CODE =
  'const rows = []; for (let i = 0; i < 60000; i++) rows.push({ id: i, name: "customer " + i, ' +
  'email: "c" + i + "@example.com", note: "n".repeat(20) }); return { total: rows.length, rows };';
const customersResult = () => {
  const rows = [];
  for (let i = 0; i < 60000; i++)
    rows.push({ id: i, name: `customer ${i}`, email: `c${i}@example.com`, note: 'n'.repeat(20) });
  return JSON.stringify({ total: rows.length, rows });
};

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
    stack = await startWorkflowStack(() => ({ CODE_MAX_OUTPUT_BYTES: '8mb', CODE_TIMEOUT_MS: '10000' }));
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

  describe('tool results', () => {
    beforeAll(async () => {
      await api.createTool({
        name: 'list_customers',
        description: 'Lists every customer',
        effect: 'read_only',
        function_schema: {
          name: 'list_customers',
          description: 'Lists every customer',
          parameters: { type: 'object', properties: {} },
        },
        implementation_type: 'code',
        implementation_config: { language: 'javascript', code: CUSTOMERS_CODE },
      });
    });

    it('should cut a 5 MB result for the model and let it read all of it through read_tool_result', async () => {
      const full = customersResult();
      const pageLength = 100_000;
      llm.script([
        reply.toolCalls([{ name: 'list_customers', id: 'call_list', arguments: {} }]),
        reply.from((request) => {
          const cut = toolMessages(request.body as unknown as Body)[0].content ?? '';
          const ref = /ref "([^"]+)"/.exec(cut)?.[1] ?? 'missing';
          const total = Number(/The full result \((\d+) characters/.exec(cut)?.[1]);
          const pages = Array.from({ length: Math.ceil(total / pageLength) }, (_, index) => ({
            name: 'read_tool_result',
            id: `call_page_${index}`,
            arguments: { ref, offset: index * pageLength, length: pageLength },
          }));
          return reply.toolCalls(pages, { whole: true });
        }),
        reply.text('There are 60000 customers.'),
      ]);
      const run = await api.run(agentWorkflow({ tools: ['list_customers'], max_tool_result_tokens: 50_000 }));

      const [, second, third] = bodies();
      const cut = toolMessages(second)[0].content ?? '';
      expect(cut).toContain(`The full result (${full.length} characters`);
      expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'There are 60000 customers.' } });
      expect(full.length).toBeGreaterThan(5_000_000);
      expect(second.tools?.map((tool) => tool.function.name)).toEqual(['list_customers', 'read_tool_result']);
      expect(cut.length).toBeLessThan(200_000);
      expect(cut).toContain('$.rows kept');
      const pages = toolMessages(third)
        .slice(1)
        .map((message) => (message.content ?? '').replace(/\n\[characters \d+ to \d+ of \d+; [^\]]+\]$/, ''));
      expect(pages.join('')).toBe(full);
    });
  });
});
