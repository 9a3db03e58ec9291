import request from 'supertest';
import { McpTestServer } from '../support/mcp-test-server';
import { OpenAITestServer, reply } from '../support/openai-test-server';
import { ADMIN_KEY, bearer, startTestApp, type TestApp } from '../support/test-app';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow, llmEnv } from '../support/workflow-fixtures';

interface AuditRecord {
  id: string;
  created_at: string;
  actor: { key_id: string; key_name: string | null; user_id: string };
  action: string;
  object: { type: string; id: string; name: string | null };
  before_version: number | null;
  after_version: number | null;
  request_id: string | null;
}
interface AuditPage {
  items: AuditRecord[];
  total: number;
  page: number;
  page_size: number;
}

const SECRET = 'sk-live-audit-secret-0123456789';

/** An http tool whose config carries a credential header: it must never reach the audit trail. */
const secretTool = (name: string, url: string) => ({
  name,
  description: 'Calls a backend with a key',
  function_schema: {
    type: 'function',
    function: { name, description: 'Calls a backend', parameters: { type: 'object', properties: {} } },
  },
  implementation_type: 'http',
  implementation_config: { method: 'GET', url, headers: { Authorization: `Bearer ${SECRET}` } },
});

const approvalTool = (name: string) => ({
  name,
  description: 'Wipes a target',
  function_schema: {
    type: 'function',
    function: {
      name,
      description: 'Wipes a target',
      parameters: { type: 'object', properties: { target: { type: 'string' } }, required: ['target'] },
    },
  },
  implementation_type: 'code',
  implementation_config: { language: 'javascript', code: 'return { wiped: args.target };' },
  effect: 'dangerous',
});

describe('Audit trail (e2e)', () => {
  let llm: OpenAITestServer;
  let mcp: McpTestServer;
  let sut: TestApp;
  let admin: WorkflowApi;
  let alice: WorkflowApi;
  let aliceKey: string;

  const audit = async (query: Record<string, string>): Promise<AuditPage> => {
    const response = await request(sut.http).get('/api/v1/audit').query(query).set(bearer(ADMIN_KEY)).expect(200);
    return response.body as AuditPage;
  };
  const recordsOf = async (type: string, id: string): Promise<AuditRecord[]> =>
    (await audit({ object_type: type, object_id: id, page_size: '100' })).items;

  beforeAll(async () => {
    llm = await OpenAITestServer.start();
    mcp = await McpTestServer.start([
      {
        tool: { name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: {} } },
        call: () => ({ content: [{ type: 'text', text: 'ok' }] }),
      },
    ]);
    sut = await startTestApp(llmEnv(llm));
    aliceKey = await sut.createUserKey('alice');
    admin = new WorkflowApi(sut.http, ADMIN_KEY);
    alice = new WorkflowApi(sut.http, aliceKey);
  });

  afterAll(async () => {
    await sut?.close();
    await llm?.close();
    await mcp?.close();
  });

  it('should record a tool created, changed and deleted with its versions, its actor and request id, never its secret', async () => {
    const created = await request(sut.http)
      .post('/api/v1/tools')
      .set(bearer(aliceKey))
      .set('X-Request-Id', 'audit-tool-create')
      .send(secretTool('keyed_call', 'https://api.example.com/x'))
      .expect(201);
    const id = (created.body as { id: string }).id;
    await alice.patch(`/tools/${id}`, { description: 'Calls the backend again' }).expect(200);
    await alice.delete(`/tools/${id}`).expect(204);

    const records = await recordsOf('tool', id);
    expect(records.map((record) => [record.action, record.before_version, record.after_version])).toEqual([
      ['delete', 2, null],
      ['update', 1, 2],
      ['create', null, 1],
    ]);
    const creation = records[2];
    expect(creation).toMatchObject({
      actor: { user_id: 'alice', key_name: expect.any(String) as string },
      object: { type: 'tool', id, name: 'keyed_call' },
      request_id: 'audit-tool-create',
    });
    expect(creation.actor.key_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(await audit({ page_size: '100' }))).not.toContain(SECRET);
  });

  it('should record a workflow created, changed, rolled back and deleted with before and after versions', async () => {
    const definition = agentWorkflow({});
    const created = await alice.post('/workflows', definition).expect(201);
    const id = (created.body as { id: string }).id;
    await alice.put(`/workflows/${id}`, { ...definition, description: 'second' }).expect(200);
    await alice.post(`/workflows/${id}/rollback`, { version: 1 }).expect(200);
    await alice.put(`/workflows/${id}/tests`, { cases: [{ name: 'a', inputs: { question: 'x' }, assertions: [] }] });
    await alice.put(`/workflows/${id}/tests`, { cases: [{ name: 'b', inputs: { question: 'y' }, assertions: [] }] });

    const suite = (await audit({ object_type: 'test_suite', actor_user_id: 'alice' })).items;
    expect(suite.map((record) => record.action)).toEqual(['update', 'create']);
    expect(suite[0].object.name).toBe(definition.name);

    await alice.delete(`/workflows/${id}`).expect(204);
    const records = await recordsOf('workflow', id);
    expect(records.map((record) => [record.action, record.before_version, record.after_version])).toEqual([
      ['delete', 3, null],
      ['update', 2, 3],
      ['update', 1, 2],
      ['create', null, 1],
    ]);
  });

  it('should record an MCP server registered, synced and removed, with the tools it brought', async () => {
    const created = await admin
      .post('/mcp-servers', { name: 'remote', transport: 'http', url: mcp.url, headers: { 'X-Api-Key': SECRET } })
      .expect(201);
    const id = (created.body as { server: { id: string } }).server.id;
    await admin.post(`/mcp-servers/${id}/sync`).expect(200);
    await admin.delete(`/mcp-servers/${id}`).expect(204);

    expect((await recordsOf('mcp_server', id)).map((record) => record.action)).toEqual(['delete', 'sync', 'create']);
    const tools = (await audit({ object_type: 'tool', actor_user_id: 'admin', page_size: '100' })).items;
    expect(tools.filter((record) => record.object.name === 'remote__echo').map((record) => record.action)).toEqual([
      'delete',
      'create',
    ]);
    expect(JSON.stringify(await audit({ page_size: '100' }))).not.toContain(SECRET);
  });

  it('should record an API key created and revoked, by the admin key that did it', async () => {
    const created = await admin.post('/api-keys', { name: 'ci', role: 'user', user_id: 'ci-bot' }).expect(201);
    const { id, key } = created.body as { id: string; key: string };
    await admin.delete(`/api-keys/${id}`).expect(204);

    const records = await recordsOf('api_key', id);
    expect(records.map((record) => record.action)).toEqual(['revoke', 'create']);
    expect(records[1]).toMatchObject({ object: { name: 'ci' }, actor: { user_id: 'admin' } });
    expect(JSON.stringify(records)).not.toContain(key);
  });

  it('should record the admin key and the shipped tools the service registered at start, with the system as actor', async () => {
    const page = (await admin.get('/audit?actor_user_id=system&page_size=100').expect(200)).body as AuditPage;
    const system = { key_id: 'system', key_name: expect.stringContaining('start-up') as string, user_id: 'system' };

    expect(page.items).toContainEqual(
      expect.objectContaining({
        action: 'create',
        actor: system,
        object: expect.objectContaining({ type: 'api_key', name: 'bootstrap admin (ADMIN_API_KEY)' }) as object,
      }),
    );
    expect(page.items).toContainEqual(
      expect.objectContaining({
        action: 'create',
        actor: system,
        object: expect.objectContaining({ type: 'tool', name: 'http_request' }) as object,
        after_version: 1,
      }),
    );
  });

  it('should record an approval decision, without the arguments it approved', async () => {
    await alice.createTool(approvalTool('wipe_audit'));
    llm.script([
      reply.toolCalls([{ name: 'wipe_audit', id: 'call_0', arguments: { target: `disk-${SECRET}` } }]),
      reply.text('done'),
    ]);
    const waiting = await alice.runInline(agentWorkflow({ tools: ['wipe_audit'] }), { question: 'Wipe.' }).expect(202);
    const run = waiting.body as { id: string; pending_approvals: Array<{ id: string }> };
    const approvalId = run.pending_approvals[0].id;
    await alice.post(`/runs/${run.id}/approvals/${approvalId}`, { decision: 'approve' }).expect(200);

    const records = await recordsOf('approval', approvalId);
    expect(records).toEqual([
      expect.objectContaining({ action: 'approve', object: { type: 'approval', id: approvalId, name: 'wipe_audit' } }),
    ]);
    expect(JSON.stringify(records)).not.toContain(SECRET);
  });

  it('should filter by time and page like other lists', async () => {
    const all = await audit({ page_size: '2', page: '1' });
    expect(all.items).toHaveLength(2);
    expect(all.total).toBeGreaterThan(2);
    expect(await audit({ from: '2999-01-01T00:00:00Z' })).toMatchObject({ items: [], total: 0 });
    const before = await audit({ to: new Date(Date.parse(all.items[1].created_at) + 1).toISOString() });
    expect(before.total).toBeLessThan(all.total + 1);
  });

  it('should refuse a user key with 403 and a bad filter with 400 naming it', async () => {
    await request(sut.http).get('/api/v1/audit').set(bearer(aliceKey)).expect(403);
    const bad = await request(sut.http).get('/api/v1/audit?object_type=planet').set(bearer(ADMIN_KEY)).expect(400);
    expect(JSON.stringify(bad.body)).toContain('object_type');
  });
});
