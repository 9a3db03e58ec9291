import request from 'supertest';
import { OpenAITestServer, reply } from '../support/openai-test-server';
import { ADMIN_KEY, bearer, startTestApp, type TestApp } from '../support/test-app';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow, llmEnv } from '../support/workflow-fixtures';

describe('Admission control (e2e)', () => {
  describe('with MAX_CONCURRENT_RUNS=1 and MAX_QUEUED_RUNS=2', () => {
    let llm: OpenAITestServer;
    let app: TestApp;

    beforeAll(async () => {
      llm = await OpenAITestServer.start();
      app = await startTestApp(llmEnv(llm, { MAX_CONCURRENT_RUNS: '1', MAX_QUEUED_RUNS: '2' }));
    });

    afterAll(async () => {
      await app?.close();
      await llm?.close();
    });

    it('should answer 429 with Retry-After once two runs wait behind the running one', async () => {
      const api = new WorkflowApi(app.http, ADMIN_KEY);
      const release = llm.hold();
      llm.script([reply.text('One.'), reply.text('Two.'), reply.text('Three.')]);
      const accepted: string[] = [];
      for (let index = 0; index < 3; index++) {
        const response = await api.runInline(agentWorkflow({}), { question: 'Hi?' }, false).expect(202);
        accepted.push((response.body as { id: string }).id);
      }

      const refused = await api.runInline(agentWorkflow({}), { question: 'Hi?' }, false);

      expect(refused.status).toBe(429);
      expect(refused.headers['content-type']).toContain('application/problem+json');
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      expect(refused.body).toMatchObject({ status: 429, detail: expect.stringContaining('queue is full') as string });
      release();
      for (const id of accepted) await expect(api.waitForRun(id)).resolves.toMatchObject({ status: 'succeeded' });
      await api.runInline(agentWorkflow({}), { question: 'Hi?' }, false).expect(202);
    });
  });

  describe('with RATE_LIMIT_PER_MINUTE=3', () => {
    let app: TestApp;

    beforeAll(async () => {
      app = await startTestApp({ RATE_LIMIT_PER_MINUTE: '3' });
    });

    afterAll(async () => {
      await app?.close();
    });

    it('should limit each API key on its own, across routes, and never /health', async () => {
      const [first, second] = [await app.createUserKey(), await app.createUserKey()];
      for (const path of ['/api/v1/tools', '/api/v1/workflows', '/api/v1/runs']) {
        await request(app.http).get(path).set(bearer(first)).expect(200);
      }

      const limited = await request(app.http).get('/api/v1/tools').set(bearer(first));

      expect(limited.status).toBe(429);
      expect(limited.headers['content-type']).toContain('application/problem+json');
      expect(limited.headers['retry-after']).toMatch(/^\d+$/);
      expect(limited.body).toMatchObject({ status: 429, title: 'Too Many Requests' });
      await request(app.http).get('/api/v1/tools').set(bearer(second)).expect(200);
      for (let index = 0; index < 5; index++) await request(app.http).get('/health').expect(200);
    });
  });
});
