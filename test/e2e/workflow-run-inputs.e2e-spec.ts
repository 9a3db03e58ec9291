import request from 'supertest';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

interface Problem {
  status: number;
  errors?: Array<{ field: string; message: string }>;
}

let sequence = 0;

/** start → end echoing `inputs.value`, whose schema carries `pattern`. */
const echoWorkflow = (pattern: string) => {
  sequence += 1;
  return {
    name: `inputs-${Date.now().toString(36)}-${sequence}`,
    inputs: {
      type: 'object',
      properties: { value: { type: 'string', pattern } },
      required: ['value'],
    },
    nodes: [
      { id: 'start', type: 'start', data: {} },
      { id: 'end', type: 'end', data: { outputs: { value: '{{inputs.value}}' } } },
    ],
    edges: [{ source: 'start', target: 'end' }],
  };
};

describe('Workflow run inputs (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });

  afterAll(async () => {
    await app?.close();
  });

  const createWorkflow = async (key: string, pattern: string): Promise<string> => {
    const response = await request(app.http)
      .post('/api/v1/workflows')
      .set(bearer(key))
      .send(echoWorkflow(pattern))
      .expect(201);
    return (response.body as { id: string }).id;
  };

  const runsOf = async (key: string, workflowId: string): Promise<number> => {
    const response = await request(app.http).get(`/api/v1/runs?workflow_id=${workflowId}`).set(bearer(key)).expect(200);
    return (response.body as { total: number }).total;
  };

  it('should validate a catastrophic-backtracking pattern in linear time while /health keeps answering', async () => {
    const key = await app.createUserKey();
    const workflowId = await createWorkflow(key, '^(a+)+$');
    const hostile = `${'a'.repeat(5000)}!`;

    const [run, health] = await Promise.all([
      request(app.http)
        .post(`/api/v1/workflows/${workflowId}/runs`)
        .set(bearer(key))
        .send({ inputs: { value: hostile } }),
      request(app.http).get('/health'),
    ]);

    expect(health.status).toBe(200);
    expect(run.status).toBe(400);
    expect(run.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((run.body as Problem).errors).toEqual([
      { field: 'inputs.value', message: expect.stringContaining('must match pattern') },
    ]);

    const matching = await request(app.http)
      .post(`/api/v1/workflows/${workflowId}/runs?wait=true`)
      .set(bearer(key))
      .send({ inputs: { value: 'a'.repeat(5000) } })
      .expect(200);
    expect(matching.body).toMatchObject({ status: 'succeeded', outputs: { value: 'a'.repeat(5000) } });
  });

  it('should answer 400 naming the field and create no run when the inputs do not match', async () => {
    const key = await app.createUserKey();
    const workflowId = await createWorkflow(key, '^[a-z]+$');

    const response = await request(app.http)
      .post(`/api/v1/workflows/${workflowId}/runs`)
      .set(bearer(key))
      .send({ inputs: { value: 'NOT LOWER' } })
      .expect(400);

    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((response.body as Problem).errors).toEqual([
      { field: 'inputs.value', message: expect.stringContaining('must match pattern') },
    ]);
    expect(await runsOf(key, workflowId)).toBe(0);

    await request(app.http)
      .post(`/api/v1/workflows/${workflowId}/runs`)
      .set(bearer(key))
      .send({ inputs: {} })
      .expect(400);
    expect(await runsOf(key, workflowId)).toBe(0);
  });
});
