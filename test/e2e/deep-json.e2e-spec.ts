import request from 'supertest';
import { reply } from '../support/openai-test-server';
import { ADMIN_KEY, bearer } from '../support/test-app';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow } from '../support/workflow-fixtures';

const deepArguments = (depth: number) => `{"expression":${'['.repeat(depth)}1${']'.repeat(depth)}}`;

describe('Deeply nested JSON (e2e)', () => {
  let stack: WorkflowStack;
  let api: WorkflowApi;

  beforeAll(async () => {
    stack = await startWorkflowStack();
    api = new WorkflowApi(stack.app.http, ADMIN_KEY);
  });

  afterAll(() => stack.close());

  const calculatorLogs = async () =>
    (await request(stack.app.http).get('/api/v1/tools/calculator/logs').set(bearer(ADMIN_KEY)).expect(200)).body as {
      total: number;
      items: Array<{ input: string; status: string; error_message: string | null }>;
    };

  it('should refuse arguments nested 5,000 deep with a clear error, and log the call', async () => {
    const before = (await calculatorLogs()).total;

    const response = await request(stack.app.http)
      .post('/api/v1/tools/calculator/execute')
      .set(bearer(ADMIN_KEY))
      .send({ arguments: deepArguments(5000) });

    expect(response.status).toBeLessThan(500);
    expect(JSON.stringify(response.body)).toContain('nested deeper than 128 levels');
    expect(JSON.stringify(response.body)).not.toContain('Maximum call stack');
    const logs = await calculatorLogs();
    expect(logs.total).toBe(before + 1);
  });

  it('should log the call of a model that answers with arguments nested 5,000 deep', async () => {
    stack.llm.script([
      reply.toolCalls([{ name: 'calculator', id: 'call_deep', arguments: deepArguments(5000) }]),
      reply.text('done'),
    ]);
    const before = (await calculatorLogs()).total;

    const run = await api.run(agentWorkflow({ tools: ['calculator'] }));

    expect(run.status).toBe('succeeded');
    const logs = await calculatorLogs();
    expect(logs.total).toBe(before + 1);
    const node = (await api.getRun(run.id)).nodes?.find((candidate) => candidate.node_id === 'llm-1');
    expect(JSON.stringify(node?.tool_calls)).toContain('nested deeper than 128 levels');
  });
});
