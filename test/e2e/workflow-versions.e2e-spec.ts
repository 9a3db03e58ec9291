import { OpenAITestServer, reply } from '../support/openai-test-server';
import { startTestApp, type TestApp } from '../support/test-app';
import { type RunBody, WorkflowApi } from '../support/workflow-api';
import { agentWorkflow, llmEnv } from '../support/workflow-fixtures';

interface WorkflowBody {
  id: string;
  version: number;
  definition: Record<string, unknown>;
}
type PinnedRun = RunBody & { workflow_version: number; pending_approvals: Array<{ id: string }> };

/** A code tool that needs a person's approval: a run that calls it waits, and resumes once approved. */
const guardedTool = (name: string) => ({
  name,
  description: 'Deletes a record',
  function_schema: {
    type: 'function',
    function: { name, parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
  },
  implementation_type: 'code',
  implementation_config: { language: 'javascript', code: 'return { deleted: args.id };' },
  effect: 'dangerous',
});

describe('Workflow versions (e2e)', () => {
  let llm: OpenAITestServer;
  let sut: TestApp;
  let alice: WorkflowApi;
  let bob: WorkflowApi;
  const tool = `guarded_${Date.now().toString(36)}`;

  beforeAll(async () => {
    llm = await OpenAITestServer.start();
    sut = await startTestApp(llmEnv(llm));
    alice = new WorkflowApi(sut.http, await sut.createUserKey('alice'));
    bob = new WorkflowApi(sut.http, await sut.createUserKey('bob'));
    await alice.createTool(guardedTool(tool));
  });

  afterEach(() => llm.reset());

  afterAll(async () => {
    await sut?.close();
    await llm?.close();
  });

  it('should keep every save as an immutable version, list them newest first and roll back to one', async () => {
    const first = agentWorkflow({});
    const created = (await alice.post('/workflows', first).expect(201)).body as WorkflowBody;
    const second = { ...first, description: 'second' };
    await alice.put(`/workflows/${created.id}`, second).expect(200);

    const listed = await alice.get(`/workflows/${created.id}/versions`).expect(200);
    expect((listed.body as Array<{ version: number; description: string }>).map((row) => row.version)).toEqual([2, 1]);
    const one = await alice.get(`/workflows/${first.name}/versions/1`).expect(200);
    expect(one.body).toMatchObject({ workflow_id: created.id, version: 1, definition: first });

    const rolledBack = await alice.post(`/workflows/${created.id}/rollback`, { version: 1 }).expect(200);
    expect(rolledBack.body).toMatchObject({ version: 3, definition: first });
    const three = await alice.get(`/workflows/${created.id}/versions/3`).expect(200);
    expect(three.body).toMatchObject({ version: 3, definition: first });
    expect((await alice.get(`/workflows/${created.id}/versions/2`).expect(200)).body).toMatchObject({
      definition: second,
    });

    await alice.get(`/workflows/${created.id}/versions/9`).expect(404);
    await alice.post(`/workflows/${created.id}/rollback`, { version: 'one' }).expect(400);
    await bob.get(`/workflows/${created.id}/versions`).expect(404);
    await bob.post(`/workflows/${created.id}/rollback`, { version: 1 }).expect(404);
  });

  it('should run the version a run started with after the workflow is edited, also once it resumes', async () => {
    const definition = agentWorkflow({ tools: [tool] });
    definition.nodes[2].data = { outputs: { answer: '{{llm-1.text}}' } };
    const created = (await alice.post('/workflows', definition).expect(201)).body as WorkflowBody;
    llm.script([reply.toolCalls([{ name: tool, id: 'call_0', arguments: { id: '7' } }]), reply.text('Deleted 7.')]);
    const started = await alice.post(`/workflows/${created.id}/runs?wait=true`, { inputs: { question: 'Go' } });
    const waiting = started.body as PinnedRun;
    expect(waiting).toMatchObject({ status: 'waiting', workflow_version: 1 });

    // Version 2 names its output differently and drops the tool: the waiting run must not see it.
    const edited = agentWorkflow({}, { name: definition.name });
    (edited.nodes[2] as { data: unknown }).data = { outputs: { renamed: '{{llm-1.text}}' } };
    await alice.put(`/workflows/${created.id}`, edited).expect(200);

    const approval = waiting.pending_approvals[0].id;
    await alice.post(`/runs/${waiting.id}/approvals/${approval}`, { decision: 'approve' }).expect(200);
    const finished = (await alice.waitForRun(waiting.id)) as PinnedRun;
    expect(finished).toMatchObject({ status: 'succeeded', workflow_version: 1, outputs: { answer: 'Deleted 7.' } });

    llm.script([reply.text('Fresh.')]);
    const next = await alice.post(`/workflows/${created.id}/runs?wait=true`, { inputs: { question: 'Go' } });
    expect(next.body).toMatchObject({ status: 'succeeded', workflow_version: 2, outputs: { renamed: 'Fresh.' } });
  });
});
