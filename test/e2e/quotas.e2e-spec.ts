import request from 'supertest';
import { OpenAITestServer, reply } from '../support/openai-test-server';
import { ADMIN_KEY, bearer, startTestApp, throwawayDatabase, type TestApp } from '../support/test-app';
import { type RunBody, WorkflowApi } from '../support/workflow-api';
import { agentWorkflow, llmEnv } from '../support/workflow-fixtures';

interface QuotaState {
  quota: string;
  window: string;
  limit: number;
  used: number;
  resets_at: string | null;
  exceeded: boolean;
}
interface QuotaBody {
  user_id: string;
  limits: Record<string, unknown>;
  states: QuotaState[];
}
interface UsageFigures {
  runs: number;
  model_calls: number;
  total_tokens: number;
  cost: { amount: number; currency: string } | null;
  code_cpu_seconds: number | null;
}
interface UsageBody {
  user_id: string;
  group_by: string;
  items: Array<UsageFigures & { key: string; name?: string | null }>;
  totals: UsageFigures;
}
type WaitingRun = RunBody & { pending_approvals: Array<{ id: string }> };

/** 1000 prompt and 100 completion tokens at $2 / $8 per million: $0.0028 per call. */
const USAGE = { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 };
const CALL_COST = 0.0028;

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

/** Runs posted at once against a quota of a few. */
const PARALLEL = 12;
const statusCounts = (responses: Array<{ status: number }>): Record<number, number> => {
  const counts: Record<number, number> = {};
  for (const { status } of responses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
};

const nextUtcMidnight = (): string => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();
};

describe('Quotas and usage (e2e)', () => {
  let llm: OpenAITestServer;
  let sut: TestApp;
  let admin: WorkflowApi;
  let carol: WorkflowApi;
  let carolKey: string;
  let env: Record<string, string>;
  let workflowId: string;
  let workflowName: string;
  let database: { url: string; drop: () => Promise<void> };

  const putQuota = (userId: string, body: Record<string, unknown>) =>
    request(sut.http).put(`/api/v1/quotas/${userId}`).set(bearer(ADMIN_KEY)).send(body);
  const textRun = () => {
    llm.script([reply.text('Fine.', { usage: USAGE })]);
    return carol.runInline(agentWorkflow({ provider: 'priced' }), { question: 'Hi?' });
  };

  beforeAll(async () => {
    llm = await OpenAITestServer.start();
    env = llmEnv(llm, {
      LLM_PROVIDERS: JSON.stringify({
        priced: {
          base_url: llm.baseUrl,
          api_key: 'test-key',
          default_model: 'priced-model',
          models: { 'priced-model': { price: { input: 2, output: 8 } } },
        },
      }),
    });
    database = await throwawayDatabase();
    sut = await startTestApp(env, { databaseUrl: database.url });
    carolKey = await sut.createUserKey('carol');
    admin = new WorkflowApi(sut.http, ADMIN_KEY);
    carol = new WorkflowApi(sut.http, carolKey);
    await carol.createTool(approvalTool('wipe_quota'));
    const stored = await carol.post('/workflows', agentWorkflow({ provider: 'priced' })).expect(201);
    ({ id: workflowId, name: workflowName } = stored.body as { id: string; name: string });
  });

  afterEach(() => llm.reset());

  afterAll(async () => {
    await sut?.close();
    await database?.drop();
    await llm?.close();
  });

  it('should refuse a run past the concurrency quota with a problem body, and let the running one finish', async () => {
    await putQuota('carol', { concurrent_runs: 1 }).expect(200);
    llm.script([
      reply.toolCalls([{ name: 'wipe_quota', id: 'call_0', arguments: { target: 'disk' } }], { usage: USAGE }),
      reply.text('Wiped.', { usage: USAGE }),
    ]);
    const waiting = await carol
      .runInline(agentWorkflow({ provider: 'priced', tools: ['wipe_quota'] }), { question: 'Wipe.' })
      .expect(202);
    const running = waiting.body as WaitingRun;
    expect(running.status).toBe('waiting');

    const refused = await carol.runInline(agentWorkflow({ provider: 'priced' }), { question: 'Hi?' }).expect(429);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.body).toMatchObject({
      status: 429,
      quota: 'concurrent_runs',
      window: 'concurrent',
      limit: 1,
      used: 1,
      resets_at: null,
      detail: expect.stringContaining('concurrent_runs') as string,
    });

    await carol.post(`/runs/${running.id}/approvals/${running.pending_approvals[0].id}`, { decision: 'approve' });
    const finished = await carol.waitForRun(running.id);
    expect(finished.status).toBe('succeeded');
    await textRun().expect(200);
  });

  it('should refuse runs past the daily run and token quotas, naming the window and when it resets', async () => {
    await putQuota('carol', { runs_per_day: 2 }).expect(200);
    const runs = await request(sut.http)
      .post(`/api/v1/workflows/${workflowId}/runs`)
      .set(bearer(carolKey))
      .send({ inputs: { question: 'Hi?' } });
    expect(runs.status).toBe(429);
    expect(runs.body).toMatchObject({ quota: 'runs_per_day', window: 'day', limit: 2, used: 2 });
    expect((runs.body as { resets_at: string }).resets_at).toBe(nextUtcMidnight());
    expect(Number(runs.headers['retry-after'])).toBeGreaterThan(0);

    // 3 model calls so far: 3300 tokens.
    await putQuota('carol', { tokens_per_day: 3300 }).expect(200);
    const tokens = await textRun().expect(429);
    expect(tokens.body).toMatchObject({ quota: 'tokens_per_day', window: 'day', limit: 3300, used: 3300 });

    await putQuota('carol', { tokens_per_day: 3301, cost_per_month: { amount: 0.0084, currency: 'USD' } });
    const cost = await textRun().expect(429);
    expect(cost.body).toMatchObject({ quota: 'cost_per_month', window: 'month', limit: 0.0084 });
    expect((cost.body as { used: number }).used).toBeCloseTo(3 * CALL_COST, 9);
  });

  it('should count the same after a restart of the app on the same database', async () => {
    await putQuota('carol', { runs_per_day: 2, tokens_per_day: 1_000_000 }).expect(200);
    const before = (await carol.get('/quotas/me').expect(200)).body as QuotaBody;
    expect(before.states).toEqual([
      expect.objectContaining({ quota: 'runs_per_day', used: 2, exceeded: true }),
      expect.objectContaining({ quota: 'tokens_per_day', used: 3300, exceeded: false }),
    ]);

    await sut.close();
    sut = await startTestApp(env, { databaseUrl: database.url });
    admin = new WorkflowApi(sut.http, ADMIN_KEY);
    carol = new WorkflowApi(sut.http, carolKey);

    const after = (await carol.get('/quotas/me').expect(200)).body as QuotaBody;
    expect(after.states).toEqual(before.states);
    const refused = await carol.runInline(agentWorkflow({ provider: 'priced' }), { question: 'Hi?' }).expect(429);
    expect(refused.body).toMatchObject({ quota: 'runs_per_day', used: 2 });
  });

  it('should report usage by day, by workflow and by model with the numbers the quotas count', async () => {
    await putQuota('carol', {}).expect(200);
    llm.script([reply.text('Stored.', { usage: USAGE })]);
    await carol.post(`/workflows/${workflowId}/runs?wait=true`, { inputs: { question: 'Hi?' } }).expect(200);

    const byDay = (await carol.get('/usage?group_by=day').expect(200)).body as UsageBody;
    const today = new Date().toISOString().slice(0, 10);
    expect(byDay.user_id).toBe('carol');
    expect(byDay.items).toEqual([
      expect.objectContaining({
        key: today,
        runs: 3,
        model_calls: 4,
        total_tokens: 4400,
        code_cpu_seconds: expect.any(Number) as number,
      }),
    ]);
    expect(byDay.items[0].cost?.amount).toBeCloseTo(4 * CALL_COST, 9);
    expect(byDay.items[0].code_cpu_seconds).toBeGreaterThan(0);

    const byWorkflow = (await carol.get('/usage?group_by=workflow').expect(200)).body as UsageBody;
    // Each stored workflow by its id and its name; runs of no stored workflow (`inline`) have no name.
    expect(byWorkflow.items.map((item) => [item.key, item.name, item.runs, item.model_calls])).toEqual(
      [
        ['inline', null, 2, 3],
        [workflowId, workflowName, 1, 1],
      ].sort(),
    );
    expect(byDay.items[0].name).toBeNull();
    const byModel = (await carol.get('/usage?group_by=model').expect(200)).body as UsageBody;
    expect(byModel.items).toEqual([
      expect.objectContaining({
        key: 'priced/priced-model',
        model_calls: 4,
        total_tokens: 4400,
        code_cpu_seconds: null,
      }),
    ]);
    for (const body of [byDay, byWorkflow, byModel]) expect(body.totals.total_tokens).toBe(4400);

    const quota = (await putQuota('carol', { tokens_per_day: 10_000 }).expect(200)).body as QuotaBody;
    expect(quota.states[0].used).toBe(byDay.totals.total_tokens);
  });

  it('should let admins read any user’s usage and quotas, and nobody else', async () => {
    const forCarol = (await admin.get('/usage?user_id=carol&group_by=model').expect(200)).body as UsageBody;
    expect(forCarol.totals.total_tokens).toBe(4400);
    await carol.get('/usage?user_id=admin').expect(403);
    await carol.get('/quotas/carol').expect(403);
    await carol.put('/quotas/carol', { runs_per_day: 1000 }).expect(403);
    expect(((await admin.get('/quotas/carol').expect(200)).body as QuotaBody).limits).toEqual({
      tokens_per_day: 10_000,
    });
    expect(((await admin.get('/quotas').expect(200)).body as { items: QuotaBody[] }).items).toHaveLength(1);
  });

  it('should refuse bad quotas and usage queries with 400 naming the field', async () => {
    const negative = await putQuota('carol', { runs_per_day: -1 }).expect(400);
    expect(JSON.stringify(negative.body)).toContain('runs_per_day');
    const currency = await putQuota('carol', { cost_per_day: { amount: 1, currency: 'dollars' } }).expect(400);
    expect(JSON.stringify(currency.body)).toContain('currency');
    const unknown = await putQuota('carol', { runs_per_week: 3 }).expect(400);
    expect(JSON.stringify(unknown.body)).toContain('runs_per_week');
    const grouping = await carol.get('/usage?group_by=planet').expect(400);
    expect(JSON.stringify(grouping.body)).toContain('group_by');
    const order = await carol.get('/usage?from=2026-12-02&to=2026-12-01').expect(400);
    expect(JSON.stringify(order.body)).toContain('from');
  });

  it('should accept exactly k of n parallel runs against a concurrency quota of k', async () => {
    const daveKey = await sut.createUserKey('dave');
    const dave = new WorkflowApi(sut.http, daveKey);
    await dave.createTool(approvalTool('wipe_quota'));
    await putQuota('dave', { concurrent_runs: 2 }).expect(200);
    llm.script(
      Array.from({ length: PARALLEL }, (_, index) =>
        reply.toolCalls([{ name: 'wipe_quota', id: `call_${index}`, arguments: { target: 'disk' } }]),
      ),
    );
    const definition = agentWorkflow({ provider: 'priced', tools: ['wipe_quota'] });
    const responses = await Promise.all(
      Array.from({ length: PARALLEL }, () => dave.runInline(definition, { question: 'Wipe.' }, false)),
    );
    expect(statusCounts(responses)).toEqual({ 202: 2, 429: PARALLEL - 2 });
    const state = ((await dave.get('/quotas/me').expect(200)).body as QuotaBody).states[0];
    expect(state).toMatchObject({ quota: 'concurrent_runs', used: 2, exceeded: true });
  });

  it('should accept exactly k of n parallel runs against a daily run quota of k', async () => {
    const erinKey = await sut.createUserKey('erin');
    const stored = await new WorkflowApi(sut.http, erinKey).post('/workflows', agentWorkflow({ provider: 'priced' }));
    const erinWorkflowId = (stored.body as { id: string }).id;
    await putQuota('erin', { runs_per_day: 3 }).expect(200);
    llm.script(Array.from({ length: 3 }, () => reply.text('Fine.', { usage: USAGE })));
    const responses = await Promise.all(
      Array.from({ length: PARALLEL }, () =>
        request(sut.http)
          .post(`/api/v1/workflows/${erinWorkflowId}/runs`)
          .set(bearer(erinKey))
          .send({ inputs: { question: 'Hi?' } }),
      ),
    );
    expect(statusCounts(responses)).toEqual({ 202: 3, 429: PARALLEL - 3 });
    const refused = responses.find((response) => response.status === 429);
    expect(refused?.body).toMatchObject({ quota: 'runs_per_day', limit: 3, used: 3 });
  });

  it('should audit every quota change', async () => {
    const records = await admin.get('/audit?object_type=quota&object_id=carol&page_size=100').expect(200);
    const items = (records.body as { items: Array<{ action: string; actor: { user_id: string } }> }).items;
    expect(items.length).toBeGreaterThanOrEqual(6);
    expect(items.at(-1)).toMatchObject({ action: 'create', actor: { user_id: 'admin' } });
    expect(items[0].action).toBe('update');
  });
});
