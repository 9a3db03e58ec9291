import request from 'supertest';
import { toolBody } from '../factories/tool.factory';
import { ADMIN_KEY, bearer, startTestApp, type TestApp } from '../support/test-app';

const codeTool = (name: string, answer: string, overrides: Record<string, unknown> = {}) =>
  toolBody({
    name,
    implementation_config: { language: 'javascript', code: `return { owner: ${JSON.stringify(answer)} };` },
    ...overrides,
  });

const workflow = (name: string, description: string) => ({
  name,
  description,
  nodes: [
    { id: 'start', type: 'start', data: {} },
    { id: 'end', type: 'end', data: { outputs: {} } },
  ],
  edges: [{ source: 'start', target: 'end' }],
});

describe('Names per owner (e2e)', () => {
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

  const post = (key: string, path: string, body: unknown) =>
    request(sut.http)
      .post(`/api/v1${path}`)
      .set(bearer(key))
      .send(body as object);
  const execute = async (key: string, name: string) =>
    (
      (await post(key, `/tools/${name}/execute`, { arguments: { a: 1, b: 2 } }).expect(200)).body as {
        data: { owner: string };
      }
    ).data.owner;

  it('should tell each key who it is (GET /me), so the console can show owners to admins', async () => {
    const me = (key: string) => request(sut.http).get('/api/v1/me').set(bearer(key)).expect(200);

    expect((await me(alice)).body).toEqual({ user_id: 'alice', role: 'user', key_name: expect.any(String) as string });
    expect((await me(ADMIN_KEY)).body).toMatchObject({ role: 'admin' });
    await request(sut.http).get('/api/v1/me').expect(401);
  });

  it("should let two users create a tool of the same name, without telling either about the other's", async () => {
    await post(alice, '/tools', codeTool('lookup', 'alice')).expect(201);
    const second = await post(bob, '/tools', codeTool('lookup', 'bob')).expect(201);

    expect(JSON.stringify(second.body)).not.toContain('alice');
    expect(await execute(alice, 'lookup')).toBe('alice');
    expect(await execute(bob, 'lookup')).toBe('bob');
    const listed = await request(sut.http).get('/api/v1/tools?q=lookup').set(bearer(bob)).expect(200);
    expect((listed.body as { total: number }).total).toBe(1);
  });

  it('should still refuse a second tool of the same name from the same owner', async () => {
    await post(alice, '/tools', codeTool('twice', 'alice')).expect(201);
    const response = await post(alice, '/tools', codeTool('twice', 'alice')).expect(409);
    expect(response.body).toMatchObject({ errors: [{ field: 'name' }] });
  });

  it("should run the caller's own tool first and the public one otherwise", async () => {
    await post(ADMIN_KEY, '/tools', codeTool('weather', 'public', { is_public: true })).expect(201);
    await post(alice, '/tools', codeTool('weather', 'alice')).expect(201);

    expect(await execute(alice, 'weather')).toBe('alice');
    expect(await execute(bob, 'weather')).toBe('public');
  });

  it('should let two users create a workflow of the same name, each reading its own', async () => {
    const first = await post(alice, '/workflows', workflow('daily-report', "alice's")).expect(201);
    const second = await post(bob, '/workflows', workflow('daily-report', "bob's")).expect(201);
    await post(bob, '/workflows', workflow('daily-report', 'again')).expect(409);

    expect((first.body as { id: string }).id).not.toBe((second.body as { id: string }).id);
    const read = await request(sut.http).get('/api/v1/workflows/daily-report').set(bearer(bob)).expect(200);
    expect(read.body).toMatchObject({ description: "bob's" });
  });
});
