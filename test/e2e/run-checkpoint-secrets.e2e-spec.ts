import { DataSource } from 'typeorm';
import { sendJson, startHttpTestServer, type HttpTestServer } from '../support/http-test-server';
import { OpenAITestServer, reply } from '../support/openai-test-server';
import { ADMIN_KEY, startTestApp, type TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow, httpToolBody, llmEnv } from '../support/workflow-fixtures';

const SECRET = 'checkpoint-password-5555';

describe('Run checkpoints and credentials (e2e)', () => {
  let llm: OpenAITestServer;
  let backend: HttpTestServer;
  let sut: TestApp;
  let api: WorkflowApi;

  beforeAll(async () => {
    llm = await OpenAITestServer.start();
    backend = await startHttpTestServer((_recorded, response) => sendJson(response, 200, { ok: true }));
    sut = await startTestApp(llmEnv(llm));
    api = new WorkflowApi(sut.http, ADMIN_KEY);
  });

  afterAll(async () => {
    await sut?.close();
    await backend?.close();
    await llm?.close();
  });

  const storedState = async (runId: string): Promise<string> => {
    const rows = await sut.app
      .get(DataSource)
      .query<Array<{ state: unknown }>>('SELECT state FROM run_checkpoints WHERE run_id = ?', [runId]);
    expect(rows).toHaveLength(1);
    return typeof rows[0].state === 'string' ? rows[0].state : JSON.stringify(rows[0].state);
  };

  it('should keep a password the model passed to a tool out of the run_checkpoints row once the call finished', async () => {
    const parameters = {
      type: 'object',
      properties: { user: { type: 'string' }, password: { type: 'string' } },
      required: ['user', 'password'],
    };
    await api.createTool(httpToolBody('login', `${backend.origin}/login?user={user}`, { parameters }));
    llm.script([
      reply.toolCalls([{ id: 'call_login', name: 'login', arguments: { user: 'ann', password: SECRET } }]),
      reply.hang(),
    ]);

    const started = await api
      .runInline(agentWorkflow({ tools: ['login'] }), { question: 'Log in.' }, false)
      .expect(202);
    const { id } = started.body as { id: string };
    // The second model call starts after the call's result was checkpointed.
    await waitFor(() => llm.requests.length === 2, { what: 'the model call after the tool result' });

    const midway = await storedState(id);
    expect(midway).toContain('call_login');
    expect(midway).toContain('ann');
    expect(midway).not.toContain(SECRET);
    expect(backend.requests).toHaveLength(1);

    await api.post(`/runs/${id}/cancel`).expect(200);
    await api.waitForRun(id);
    expect(await storedState(id)).not.toContain(SECRET);
  });
});
