import { getRepositoryToken } from '@nestjs/typeorm';
import request from 'supertest';
import type { Repository } from 'typeorm';
import { IdempotencyKeyEntity } from '../../src/common/idempotency/idempotency-key.entity';
import { toolBody } from '../factories/tool.factory';
import { ADMIN_KEY, bearer, startTestApp, type TestApp } from '../support/test-app';
import type { RunBody } from '../support/workflow-api';
import { WorkflowApi } from '../support/workflow-api';

interface Problem {
  status: number;
  request_id?: string;
  errors?: Array<{ field: string; message: string }>;
}

interface Page<T> {
  items: T[];
  page: number;
  page_size: number;
  total: number;
}

const admin = bearer(ADMIN_KEY);
const CONSOLE_ORIGIN = 'https://console.example.com';

/** start → template → end: a run that needs no model. */
const echoWorkflow = (name: string) => ({
  name,
  inputs: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  nodes: [
    { id: 'start', type: 'start', data: {} },
    { id: 'echo', type: 'template', data: { template: '{{inputs.text}}' } },
    { id: 'end', type: 'end', data: { outputs: { result: '{{echo.output}}' } } },
  ],
  edges: [
    { source: 'start', target: 'echo' },
    { source: 'echo', target: 'end' },
  ],
});

describe('API conventions (e2e)', () => {
  let sut: TestApp;

  beforeAll(async () => {
    sut = await startTestApp({ CORS_ORIGINS: `${CONSOLE_ORIGIN},http://localhost:5173` });
  });

  afterAll(async () => {
    await sut.close();
  });

  describe('X-Request-Id', () => {
    it('should return the caller’s request id and put it in the problem body', async () => {
      const response = await request(sut.http).get('/api/v1/tools').set('X-Request-Id', 'abc-123.xyz');

      expect(response.status).toBe(401);
      expect(response.headers['x-request-id']).toBe('abc-123.xyz');
      expect((response.body as Problem).request_id).toBe('abc-123.xyz');
    });

    it('should generate an id when the request has none, also for body parser errors', async () => {
      const response = await request(sut.http)
        .post('/api/v1/tools')
        .set(admin)
        .set('Content-Type', 'application/json')
        .send('{"name": ');

      expect(response.status).toBe(400);
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect((response.body as Problem).request_id).toBe(response.headers['x-request-id']);
    });

    it('should replace an id that is not a plain token instead of echoing it', async () => {
      const response = await request(sut.http).get('/health').set('X-Request-Id', 'bad id\twith spaces');

      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  describe('CORS', () => {
    it('should echo a listed origin exactly', async () => {
      const response = await request(sut.http)
        .options('/api/v1/tools')
        .set('Origin', CONSOLE_ORIGIN)
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'authorization,content-type');

      expect(response.status).toBe(204);
      expect(response.headers['access-control-allow-origin']).toBe(CONSOLE_ORIGIN);
    });

    it('should give another origin no CORS header', async () => {
      const response = await request(sut.http).get('/health').set('Origin', 'https://evil.example.com');

      expect(response.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('should expose the request id to a listed origin', async () => {
      const response = await request(sut.http).get('/health').set('Origin', CONSOLE_ORIGIN);

      expect(response.headers['access-control-allow-origin']).toBe(CONSOLE_ORIGIN);
      expect(response.headers['access-control-expose-headers']).toMatch(/X-Request-Id/i);
    });
  });

  describe('sort', () => {
    it('should sort tools by the given fields and refuse an unknown one naming sort', async () => {
      const key = await sut.createUserKey();
      for (const name of ['sort_b', 'sort_a', 'sort_c']) {
        await request(sut.http).post('/api/v1/tools').set(bearer(key)).send(toolBody({ name })).expect(201);
      }

      const byName = await request(sut.http).get('/api/v1/tools?q=sort_&sort=-name').set(bearer(key)).expect(200);
      expect((byName.body as Page<{ name: string }>).items.map((tool) => tool.name)).toEqual([
        'sort_c',
        'sort_b',
        'sort_a',
      ]);
      const byCreation = await request(sut.http)
        .get('/api/v1/tools?q=sort_&sort=created_at,name')
        .set(bearer(key))
        .expect(200);
      expect((byCreation.body as Page<{ name: string }>).items).toHaveLength(3);

      const unknown = await request(sut.http).get('/api/v1/tools?sort=password').set(bearer(key)).expect(400);
      expect((unknown.body as Problem).errors).toEqual([expect.objectContaining({ field: 'sort' })]);
    });

    it('should sort workflows and refuse an unknown field', async () => {
      const key = await sut.createUserKey();
      const api = new WorkflowApi(sut.http, key);
      for (const name of ['wf_sort_a', 'wf_sort_b']) await api.post('/workflows', echoWorkflow(name)).expect(201);

      const response = await api.get('/workflows?q=wf_sort_&sort=-name').expect(200);
      expect((response.body as Page<{ name: string }>).items.map((workflow) => workflow.name)).toEqual([
        'wf_sort_b',
        'wf_sort_a',
      ]);
      await api.get('/workflows?sort=definition').expect(400);
    });
  });

  describe('ETag and If-Match', () => {
    it('should return the tool version as ETag and refuse a PATCH or PUT with a stale If-Match with 412', async () => {
      const key = await sut.createUserKey();
      const created = await request(sut.http)
        .post('/api/v1/tools')
        .set(bearer(key))
        .send(toolBody({ name: 'etag_tool' }))
        .expect(201);
      const read = await request(sut.http).get('/api/v1/tools/etag_tool').set(bearer(key)).expect(200);
      expect(read.headers.etag).toBe('"1"');
      expect(created.headers.etag).toBe('"1"');

      const patched = await request(sut.http)
        .patch('/api/v1/tools/etag_tool')
        .set(bearer(key))
        .set('If-Match', read.headers.etag)
        .send({ description: 'first writer' })
        .expect(200);
      expect(patched.headers.etag).toBe('"2"');

      const stale = await request(sut.http)
        .patch('/api/v1/tools/etag_tool')
        .set(bearer(key))
        .set('If-Match', read.headers.etag)
        .send({ description: 'second writer' });
      expect(stale.status).toBe(412);
      expect(stale.headers['content-type']).toMatch(/^application\/problem\+json/);
      const stalePut = await request(sut.http)
        .put('/api/v1/tools/etag_tool')
        .set(bearer(key))
        .set('If-Match', '"1"')
        .send(toolBody({ name: 'etag_tool', description: 'second writer' }));
      expect(stalePut.status).toBe(412);
      const after = await request(sut.http).get('/api/v1/tools/etag_tool').set(bearer(key)).expect(200);
      expect((after.body as { description: string }).description).toBe('first writer');

      const unknownTag = await request(sut.http)
        .patch('/api/v1/tools/etag_tool')
        .set(bearer(key))
        .set('If-Match', '"stale"')
        .send({ description: 'x' });
      expect(unknownTag.status).toBe(412);
      await request(sut.http)
        .patch('/api/v1/tools/etag_tool')
        .set(bearer(key))
        .set('If-Match', 'not-an-etag')
        .send({ description: 'x' })
        .expect(400);
    });

    it('should refuse a PUT of a workflow with a stale If-Match with 412', async () => {
      const api = new WorkflowApi(sut.http, await sut.createUserKey());
      await api.post('/workflows', echoWorkflow('etag_workflow')).expect(201);
      const read = await api.get('/workflows/etag_workflow').expect(200);
      expect(read.headers.etag).toBe('"1"');

      await api.put('/workflows/etag_workflow', echoWorkflow('etag_workflow')).set('If-Match', '"1"').expect(200);
      const stale = await api.put('/workflows/etag_workflow', echoWorkflow('etag_workflow')).set('If-Match', '"1"');

      expect(stale.status).toBe(412);
    });

    it('should send no ETag but a version: none on a list or a tool call, which have no version to match', async () => {
      const key = await sut.createUserKey();
      const list = await request(sut.http).get('/api/v1/tools').set(bearer(key)).expect(200);
      const execute = await request(sut.http)
        .post('/api/v1/tools/calculator/execute')
        .set(bearer(key))
        .send({ arguments: { expression: '1 + 1' } })
        .expect(200);

      // A weak ETag of the body (Express's default) would be taken for a version by If-Match and refused.
      expect(list.headers.etag).toBeUndefined();
      expect(execute.headers.etag).toBeUndefined();
    });
  });

  describe('Idempotency-Key', () => {
    it('should replay a tool creation sent again with the same key and body, and refuse another body', async () => {
      const key = await sut.createUserKey();
      const body = toolBody({ name: 'idempotent_tool' });
      const send = (payload: Record<string, unknown>, idempotencyKey = 'create-idempotent-tool') =>
        request(sut.http).post('/api/v1/tools').set(bearer(key)).set('Idempotency-Key', idempotencyKey).send(payload);

      const first = await send(body).expect(201);
      const again = await send(body).expect(201);

      expect(again.body).toEqual(first.body);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const other = await send({ ...body, description: 'something else' });
      expect(other.status).toBe(422);
      expect((other.body as Problem).errors).toEqual([expect.objectContaining({ field: 'Idempotency-Key' })]);
      await request(sut.http).post('/api/v1/tools').set(bearer(key)).send(body).expect(409);
    });

    it('should forget a key whose request failed, so a corrected retry with it succeeds', async () => {
      const key = await sut.createUserKey();
      const send = (payload: Record<string, unknown>) =>
        request(sut.http).post('/api/v1/tools').set(bearer(key)).set('Idempotency-Key', 'retry-me').send(payload);

      await send(toolBody({ name: 'bad name!' })).expect(400);
      await send(toolBody({ name: 'retried_tool' })).expect(201);
    });

    it('should start one run for a repeated run request, per caller', async () => {
      const alice = new WorkflowApi(sut.http, await sut.createUserKey());
      await alice.post('/workflows', echoWorkflow('idempotent_runs')).expect(201);
      const start = (api: WorkflowApi, text: string) =>
        api.post('/workflows/idempotent_runs/runs', { inputs: { text } }).set('Idempotency-Key', 'nightly-2026-12-01');

      const first = await start(alice, 'x').expect(202);
      const again = await start(alice, 'x').expect(202);
      expect((again.body as RunBody).id).toBe((first.body as RunBody).id);
      expect(again.headers.location).toBe(first.headers.location);
      await start(alice, 'y').expect(422);
      await alice.waitForRun((first.body as RunBody).id);
      const runs = (await alice.get('/runs?workflow_id=idempotent_runs').expect(200)).body as Page<RunBody>;
      expect(runs.total).toBe(1);

      const admin = new WorkflowApi(sut.http, ADMIN_KEY);
      const adminRun = await start(admin, 'x').expect(202);
      expect((adminRun.body as RunBody).id).not.toBe((first.body as RunBody).id);
      await admin.waitForRun((adminRun.body as RunBody).id);
    });

    it('should treat an expired key as new', async () => {
      const key = await sut.createUserKey();
      const send = (name: string) =>
        request(sut.http)
          .post('/api/v1/tools')
          .set(bearer(key))
          .set('Idempotency-Key', 'expires')
          .send(toolBody({ name }));
      await send('before_expiry').expect(201);
      await sut.app
        .get<Repository<IdempotencyKeyEntity>>(getRepositoryToken(IdempotencyKeyEntity))
        .update({ key: 'expires' }, { expiresAt: new Date(Date.now() - 1000) });

      await send('after_expiry').expect(201);
    });
  });

  describe('GET /api-keys', () => {
    it('should page API keys like the other lists', async () => {
      for (let index = 0; index < 3; index += 1) await sut.createUserKey();

      const first = await request(sut.http).get('/api/v1/api-keys?page=1&page_size=2').set(admin).expect(200);
      const body = first.body as Page<{ id: string }>;
      expect(body).toMatchObject({ page: 1, page_size: 2 });
      expect(body.items).toHaveLength(2);
      expect(body.total).toBeGreaterThanOrEqual(4);
      const second = await request(sut.http).get('/api/v1/api-keys?page=2&page_size=2').set(admin).expect(200);
      const secondIds = (second.body as Page<{ id: string }>).items.map((key) => key.id);
      expect(secondIds.some((id) => body.items.some((key) => key.id === id))).toBe(false);
      await request(sut.http).get('/api/v1/api-keys?page_size=101').set(admin).expect(400);
    });
  });

  describe('runs', () => {
    let api: WorkflowApi;
    let workflowId: string;

    beforeAll(async () => {
      api = new WorkflowApi(sut.http, await sut.createUserKey());
      const created = await api.post('/workflows', echoWorkflow('echo_runs')).expect(201);
      workflowId = (created.body as { id: string }).id;
      await api.post('/workflows', echoWorkflow('other_runs')).expect(201);
    });

    it('should answer a new run with 202, status queued and no node shown running', async () => {
      const response = await api.post('/workflows/echo_runs/runs', { inputs: { text: 'hi' } });

      expect(response.status).toBe(202);
      const run = response.body as RunBody;
      expect(run.status).toBe('queued');
      expect(run.nodes ?? []).toEqual([]);
      await api.waitForRun(run.id);
    });

    it('should filter runs by workflow name as well as by id', async () => {
      const run = (await api.post('/workflows/echo_runs/runs?wait=true', { inputs: { text: 'a' } }).expect(200))
        .body as RunBody;
      await api.post('/workflows/other_runs/runs?wait=true', { inputs: { text: 'b' } }).expect(200);

      const byName = (await api.get('/runs?workflow_id=echo_runs').expect(200)).body as Page<RunBody>;
      const byId = (await api.get(`/runs?workflow_id=${workflowId}`).expect(200)).body as Page<RunBody>;

      expect(byName.items.map((item) => item.id)).toContain(run.id);
      expect(byName.items.every((item) => item.workflow_id === workflowId)).toBe(true);
      expect(byId.items.map((item) => item.id)).toEqual(byName.items.map((item) => item.id));
    });

    it('should filter runs by creation time range', async () => {
      const run = (await api.post('/workflows/echo_runs/runs?wait=true', { inputs: { text: 'c' } }).expect(200))
        .body as RunBody & { created_at: string };
      const created = new Date(run.created_at).getTime();
      const at = (ms: number) => encodeURIComponent(new Date(ms).toISOString());

      const inside = (await api.get(`/runs?created_after=${at(created)}&created_before=${at(created + 1)}`).expect(200))
        .body as Page<RunBody>;
      const after = (await api.get(`/runs?created_after=${at(created + 1)}`).expect(200)).body as Page<RunBody>;

      expect(inside.items.map((item) => item.id)).toContain(run.id);
      expect(after.items.map((item) => item.id)).not.toContain(run.id);
      await api.get('/runs?created_after=yesterday').expect(400);
    });

    it('should filter runs by parent run', async () => {
      await api
        .post(
          '/tools',
          toolBody({
            name: 'echo_tool',
            function_schema: { name: 'echo_tool', description: 'echoes text' },
            implementation_type: 'workflow',
            implementation_config: { workflow_id: 'echo_runs' },
          }),
        )
        .expect(201);
      const parent = (
        await api
          .post('/workflow-runs?wait=true', {
            definition: {
              name: 'calls_echo',
              nodes: [
                { id: 'start', type: 'start', data: {} },
                { id: 'call', type: 'tool', data: { tool: 'echo_tool', arguments: { text: 'nested' } } },
                { id: 'end', type: 'end', data: { outputs: { result: '{{call.output}}' } } },
              ],
              edges: [
                { source: 'start', target: 'call' },
                { source: 'call', target: 'end' },
              ],
            },
          })
          .expect(200)
      ).body as RunBody;
      expect(parent.status).toBe('succeeded');

      const children = (await api.get(`/runs?parent_run_id=${parent.id}`).expect(200)).body as Page<
        RunBody & { parent_run_id: string }
      >;

      expect(children.total).toBe(1);
      expect(children.items[0]).toMatchObject({ parent_run_id: parent.id, workflow_id: workflowId });
    });

    it('should sort runs and refuse an unknown sort field', async () => {
      const sorted = (await api.get('/runs?sort=created_at').expect(200)).body as Page<
        RunBody & { created_at: string }
      >;
      const times = sorted.items.map((item) => item.created_at);
      expect(times).toEqual([...times].sort());
      await api.get('/runs?sort=inputs').expect(400);
    });
  });
});
