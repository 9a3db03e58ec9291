import request from 'supertest';
import { toolBody } from '../factories/tool.factory';
import { ADMIN_KEY, bearer, startTestApp, type TestApp } from '../support/test-app';

interface Conflict {
  status: number;
  detail: string;
  dependants: Array<{ kind: string; id: string; name: string }>;
  hidden_dependants: number;
}

const toolNode = (tool: string) => ({ id: 'call', type: 'tool', data: { tool, arguments: {} } });

const workflowUsing = (name: string, tool: string) => ({
  name,
  nodes: [
    { id: 'start', type: 'start', data: {} },
    toolNode(tool),
    { id: 'end', type: 'end', data: { outputs: { result: '{{call.output}}', status: '{{call.status}}' } } },
  ],
  edges: [
    { source: 'start', target: 'call' },
    { source: 'call', target: 'end' },
  ],
});

const workflowTool = (name: string, workflowId: string) =>
  toolBody({
    name,
    function_schema: { name, description: 'runs a workflow', parameters: { type: 'object', properties: {} } },
    implementation_type: 'workflow',
    effect: 'read_only',
    implementation_config: { workflow_id: workflowId },
  });

describe('Integrity of deletes (e2e)', () => {
  let sut: TestApp;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    sut = await startTestApp();
    alice = await sut.createUserKey('alice');
    bob = await sut.createUserKey('bob');
  });

  afterAll(async () => {
    await sut.close();
  });

  const api = (key: string) => ({
    post: (path: string, body: unknown) =>
      request(sut.http)
        .post(`/api/v1${path}`)
        .set(bearer(key))
        .send(body as object),
    get: (path: string) => request(sut.http).get(`/api/v1${path}`).set(bearer(key)),
    delete: (path: string) => request(sut.http).delete(`/api/v1${path}`).set(bearer(key)),
  });

  it('should refuse to delete a tool a stored workflow uses, listing it, and delete it with force', async () => {
    const tool = await api(alice)
      .post('/tools', toolBody({ name: 'adder' }))
      .expect(201);
    const workflow = await api(alice).post('/workflows', workflowUsing('sums', 'adder')).expect(201);

    const refused = await api(alice).delete('/tools/adder').expect(409);

    expect(refused.body as Conflict).toMatchObject({
      dependants: [{ kind: 'workflow', id: (workflow.body as { id: string }).id, name: 'sums' }],
      hidden_dependants: 0,
      detail: expect.stringContaining('workflow "sums"') as unknown,
    });
    await api(alice)
      .get(`/tools/${(tool.body as { id: string }).id}`)
      .expect(200);
    await api(alice).delete('/tools/adder?force=true').expect(204);
    await api(alice).get('/tools/adder').expect(404);
    const disabled = await api(alice).get('/workflows/sums').expect(200);
    expect(disabled.body).toMatchObject({ enabled: false });
    const run = await api(alice).post('/workflows/sums/runs', { inputs: {} }).expect(409);
    expect((run.body as { detail: string }).detail).toMatch(/Workflow "sums" is disabled/);
  });

  it('should refuse new runs of a disabled workflow, also as a workflow tool, until a PUT enables it', async () => {
    await api(alice)
      .post('/tools', toolBody({ name: 'toggled_adder' }))
      .expect(201);
    const created = await api(alice)
      .post('/workflows', { definition: workflowUsing('toggled', 'toggled_adder'), enabled: false })
      .expect(201);
    expect(created.body).toMatchObject({ enabled: false });
    await api(alice).post('/tools', workflowTool('toggled_tool', 'toggled')).expect(201);

    await api(alice).post('/workflows/toggled/runs', { inputs: {} }).expect(409);
    const viaTool = await api(alice).post('/tools/toggled_tool/execute', { arguments: {} }).expect(200);
    expect(viaTool.body).toMatchObject({ success: false, error: expect.stringContaining('is disabled') as unknown });

    const enabled = await request(sut.http)
      .put('/api/v1/workflows/toggled')
      .set(bearer(alice))
      .send({ ...workflowUsing('toggled', 'toggled_adder'), enabled: true })
      .expect(200);
    expect(enabled.body).toMatchObject({ enabled: true, version: 2 });
    await api(alice).post('/workflows/toggled/runs?wait=true', { inputs: {} }).expect(200);
    const kept = await request(sut.http)
      .put('/api/v1/workflows/toggled')
      .set(bearer(alice))
      .send({ definition: workflowUsing('toggled', 'toggled_adder') })
      .expect(200);
    expect(kept.body).toMatchObject({ enabled: true, version: 3 });
    await api(alice)
      .post('/workflows', { definition: workflowUsing('bad_flag', 'toggled_adder'), enabled: 'no' })
      .expect(400);
  });

  it("should count, not name, another user's private workflow that uses a tool made public", async () => {
    await api(alice)
      .post('/tools', toolBody({ name: 'shared_adder' }))
      .expect(201);
    await request(sut.http)
      .patch('/api/v1/tools/shared_adder')
      .set(bearer(ADMIN_KEY))
      .send({ is_public: true })
      .expect(200);
    await api(bob).post('/workflows', workflowUsing('bobs-secret-plan', 'shared_adder')).expect(201);

    const refused = await api(alice).delete('/tools/shared_adder').expect(409);

    expect(refused.body as Conflict).toMatchObject({ dependants: [], hidden_dependants: 1 });
    expect(JSON.stringify(refused.body)).not.toContain('bobs-secret-plan');
    const asAdmin = await api(ADMIN_KEY).delete('/tools/shared_adder').expect(409);
    expect((asAdmin.body as Conflict).dependants).toEqual([
      { kind: 'workflow', id: expect.any(String) as unknown, name: 'bobs-secret-plan' },
    ]);
  });

  it('should not count a workflow whose owner means their own tool of the same name', async () => {
    await api(alice)
      .post('/tools', toolBody({ name: 'counter' }))
      .expect(201);
    await api(bob)
      .post('/tools', toolBody({ name: 'counter' }))
      .expect(201);
    await api(bob).post('/workflows', workflowUsing('bobs-count', 'counter')).expect(201);

    await api(alice).delete('/tools/counter').expect(204);
    await api(bob).delete('/tools/counter').expect(409);
  });

  it('should let a workflow use a workflow tool that runs itself, created in one pass, and stop it at the depth limit', async () => {
    await api(alice).post('/tools', workflowTool('again_tool', 'again')).expect(201);
    const workflow = await api(alice).post('/workflows', workflowUsing('again', 'again_tool')).expect(201);

    const run = await api(alice).post('/workflows/again/runs?wait=true', { inputs: {} }).expect(200);
    expect(JSON.stringify(run.body)).toMatch(/nesting limit/);

    const refused = await api(alice).delete('/workflows/again').expect(409);
    expect((refused.body as Conflict).dependants).toEqual([
      { kind: 'tool', id: expect.any(String) as unknown, name: 'again_tool' },
    ]);
    await api(alice).delete('/tools/again_tool').expect(409);

    await api(alice)
      .delete(`/workflows/${(workflow.body as { id: string }).id}?force=true`)
      .expect(204);
    const tool = await api(alice).get('/tools/again_tool').expect(200);
    expect(tool.body).toMatchObject({ enabled: false });
    await api(alice).delete('/tools/again_tool').expect(204);
  });

  it('should refuse a force value that is not a boolean, naming it', async () => {
    const response = await api(alice).delete('/tools/whatever?force=yes').expect(400);
    expect(JSON.stringify(response.body)).toMatch(/force/);
  });
});
