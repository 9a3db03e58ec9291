import request from 'supertest';
import { reply } from '../support/openai-test-server';
import { ADMIN_KEY, bearer } from '../support/test-app';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow } from '../support/workflow-fixtures';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';

interface Problem {
  errors: Array<{ field: string; message: string }>;
}

/** start → end, echoing its input: the workflow a workflow tool runs. */
const echoWorkflow = (name: string) => ({
  name,
  inputs: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  nodes: [
    { id: 'start', type: 'start', data: {} },
    { id: 'end', type: 'end', data: { outputs: { echoed: '{{inputs.text}}' } } },
  ],
  edges: [{ source: 'start', target: 'end' }],
});

const workflowToolBody = (name: string, workflowId: string, category: string) => ({
  name,
  description: `Runs ${workflowId}`,
  category,
  function_schema: { type: 'function', function: { name, description: `Runs ${workflowId}` } },
  implementation_type: 'workflow',
  implementation_config: { workflow_id: workflowId },
  effect: 'read_only',
});

const TOOLS_FIELD = 'body.nodes[1](llm-1).data.tools';

describe('Workflow tools whose workflow is disabled or gone (e2e)', () => {
  let stack: WorkflowStack;
  let api: WorkflowApi;

  beforeAll(async () => {
    stack = await startWorkflowStack();
    api = new WorkflowApi(stack.app.http, ADMIN_KEY);
  });

  afterEach(() => {
    stack.llm.reset();
  });

  afterAll(async () => {
    await stack.close();
  });

  const disable = async (name: string) => {
    const stored = await api.get(`/workflows/${name}`).expect(200);
    const { definition } = stored.body as { definition: unknown };
    await api.put(`/workflows/${name}`, { definition, enabled: false }).expect(200);
  };

  it('should refuse to save a workflow whose LLM node names a workflow tool of a disabled workflow, naming both', async () => {
    await api.post('/workflows', echoWorkflow('echo-off')).expect(201);
    await api.createTool(workflowToolBody('echo_off', 'echo-off', 'subflows-a'));
    await disable('echo-off');

    const refused = await api.post('/workflows', agentWorkflow({ tools: ['echo_off'] })).expect(400);
    const notStarted = await api.runInline(agentWorkflow({ tools: ['echo_off'] }), { question: 'Hi?' }).expect(400);

    expect((refused.body as Problem).errors).toEqual([
      {
        field: TOOLS_FIELD,
        message: expect.stringMatching(/tool "echo_off" runs workflow "echo-off", which is disabled/),
      },
    ]);
    expect(JSON.stringify(notStarted.body)).toContain('runs workflow \\"echo-off\\", which is disabled');
  });

  it('should refuse to save a workflow whose LLM node names a workflow tool of a workflow that is gone', async () => {
    await api.post('/workflows', echoWorkflow('echo-gone')).expect(201);
    await api.createTool(workflowToolBody('echo_gone', 'echo-gone', 'subflows-b'));
    await api.delete('/workflows/echo-gone?force=true').expect(204);
    // Deleting with force disabled the tool; someone turns it on again.
    await request(stack.app.http)
      .patch('/api/v1/tools/echo_gone')
      .set(bearer(ADMIN_KEY))
      .send({ enabled: true })
      .expect(200);

    const refused = await api.post('/workflows', agentWorkflow({ tools: ['echo_gone'] })).expect(400);

    expect((refused.body as Problem).errors).toEqual([
      {
        field: TOOLS_FIELD,
        message: expect.stringMatching(/tool "echo_gone" runs workflow "echo-gone", which does not exist/),
      },
    ]);
  });

  it('should answer the model with a readable message when it calls a workflow tool of a disabled workflow', async () => {
    await api.post('/workflows', echoWorkflow('echo-later')).expect(201);
    await api.createTool(workflowToolBody('echo_later', 'echo-later', 'subflows-c'));
    await disable('echo-later');
    stack.llm.script([
      reply.toolCalls([{ name: 'echo_later', id: 'call_echo', arguments: { text: 'hi' } }]),
      reply.text('It is switched off.'),
    ]);

    // Offered through a category, the tool is not named at save time: the call itself meets the disabled workflow.
    const run = await api.run(agentWorkflow({ tools: [{ category: 'subflows-c' }] }));

    expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'It is switched off.' } });
    const second = stack.llm.requests[1].body as unknown as {
      messages: Array<{ role: string; tool_call_id?: string; content?: string }>;
    };
    const toolMessage = second.messages.find((message) => message.role === 'tool');
    expect(toolMessage).toMatchObject({ tool_call_id: 'call_echo' });
    expect(toolMessage?.content).toMatch(/workflow "echo-later" cannot run: it is disabled/);
    // Advice for an API caller (a PUT) means nothing to the model.
    expect(toolMessage?.content).not.toMatch(/PUT/);
  });

  it('should still save a workflow that runs itself through a workflow tool, also while it is disabled', async () => {
    // The workflow does not exist yet, so the parameters cannot come from its inputs.
    const tool = workflowToolBody('self_tool', 'self-runner', 'subflows-d');
    const parameters = { type: 'object', properties: { question: { type: 'string' } } };
    await api.createTool({
      ...tool,
      function_schema: { ...tool.function_schema, function: { name: 'self_tool', parameters } },
    });
    const definition = agentWorkflow({ tools: ['self_tool'] }, { name: 'self-runner' });
    await api.post('/workflows', { definition, enabled: false }).expect(201);

    const enabled = await api.put('/workflows/self-runner', { definition, enabled: true }).expect(200);

    expect(enabled.body).toMatchObject({ enabled: true });
  });
});
