import request from 'supertest';
import { type OpenAITestServer, reply } from '../support/openai-test-server';
import { parsePrometheusText, sampleValue } from '../support/prometheus-text';
import { readRunEvents } from '../support/sse';
import { ADMIN_KEY, type TestApp } from '../support/test-app';
import type { ToolBackend } from '../support/tool-backend';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow, httpToolBody } from '../support/workflow-fixtures';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';

/** Per million tokens: 2 in, 0.5 cached in, 8 out. */
const PRICE = { input: 2, cached_input: 0.5, output: 8 };
const TOOL_ROUND = {
  prompt_tokens: 1000,
  completion_tokens: 100,
  total_tokens: 1100,
  prompt_tokens_details: { cached_tokens: 400 },
};
const ANSWER = { prompt_tokens: 1200, completion_tokens: 50, total_tokens: 1250 };
// (600 x 2 + 400 x 0.5 + 100 x 8) / 1e6 and (1200 x 2 + 50 x 8) / 1e6
const TOOL_ROUND_COST = 0.0022;
const ANSWER_COST = 0.0028;

interface Cost {
  amount: number;
  currency: string;
}

describe('What runs cost (e2e)', () => {
  let stack: WorkflowStack | undefined;
  let app: TestApp;
  let llm: OpenAITestServer;
  let backend: ToolBackend;
  let api: WorkflowApi;

  beforeAll(async () => {
    stack = await startWorkflowStack((server) => ({
      LLM_PROVIDERS: JSON.stringify({
        priced: {
          base_url: server.baseUrl,
          api_key: 'test-key',
          default_model: 'priced-model',
          models: { 'priced-model': { price: PRICE } },
        },
        unpriced: { base_url: server.baseUrl, api_key: 'test-key', default_model: 'mystery-model' },
      }),
    }));
    ({ app, llm, backend } = stack);
    api = new WorkflowApi(app.http, ADMIN_KEY);
    await api.createTool(httpToolBody('money_weather', `${backend.origin}/weather?city={id}`));
  });

  afterEach(() => llm.reset());

  afterAll(async () => {
    await stack?.close();
  });

  const scriptToolRoundAndAnswer = () =>
    llm.script([
      reply.toolCalls([{ name: 'money_weather', id: 'call_1', arguments: { id: 'Berlin' } }], { usage: TOOL_ROUND }),
      reply.text('Sunny.', { usage: ANSWER }),
    ]);
  const scrape = async () => parsePrometheusText((await request(app.http).get('/metrics').expect(200)).text);

  it('should price every model call, the node and the run, in events, the API and the metrics', async () => {
    scriptToolRoundAndAnswer();
    const before = await scrape();

    const run = await api.run(agentWorkflow({ provider: 'priced', tools: ['money_weather'] }), { question: 'Berlin?' });

    expect(run.status).toBe('succeeded');
    const stored = (await api.getRun(run.id)) as unknown as { cost: Cost; usage: Record<string, unknown> };
    expect(stored.cost).toEqual({ amount: TOOL_ROUND_COST + ANSWER_COST, currency: 'USD' });
    expect(stored.usage).not.toHaveProperty('cost');
    const node = (await api.getRun(run.id)).nodes?.find((entry) => entry.node_id === 'llm-1');
    expect((node?.output as { usage: { cost: Cost } }).usage.cost).toEqual(stored.cost);
    const { events } = await readRunEvents(app.http, run.id, ADMIN_KEY);
    const usageEvents = events.filter((event) => event.event === 'llm.usage').map((event) => event.data);
    expect(usageEvents).toMatchObject([
      { iteration: 1, usage: { cached_prompt_tokens: 400 }, cost: { amount: TOOL_ROUND_COST, currency: 'USD' } },
      { iteration: 2, cost: { amount: ANSWER_COST, currency: 'USD' } },
    ]);
    const after = await scrape();
    const labels = { provider: 'priced', model: 'priced-model', currency: 'USD' };
    const moved =
      sampleValue(after, 'toolflow_llm_cost_total', labels) - sampleValue(before, 'toolflow_llm_cost_total', labels);
    expect(moved).toBeCloseTo(TOOL_ROUND_COST + ANSWER_COST, 10);
  });

  it('should say null, never 0, for a model with no known price', async () => {
    llm.script([reply.text('Hi.', { usage: ANSWER })]);

    const run = await api.run(agentWorkflow({ provider: 'unpriced' }));

    const stored = (await api.getRun(run.id)) as unknown as { cost: Cost | null };
    expect(run.status).toBe('succeeded');
    expect(stored.cost).toBeNull();
  });

  it('should end a run with run_cost_budget once its calls reach max_cost', async () => {
    scriptToolRoundAndAnswer();
    const weatherCalls = () => backend.hits.filter((hit) => hit.path === '/weather').length;
    const callsBefore = weatherCalls();

    const run = await api.run(agentWorkflow({ provider: 'priced', tools: ['money_weather'] }, { max_cost: 0.002 }), {
      question: 'Berlin?',
    });

    expect(run).toMatchObject({ status: 'failed', stop_reason: 'run_cost_budget' });
    expect(run.error).toContain('max_cost');
    expect(llm.requests).toHaveLength(1);
    expect(weatherCalls()).toBe(callsBefore);
  });

  it('should end a run with a cost budget whose model has no price rather than run it unbounded', async () => {
    llm.script([reply.text('Hi.', { usage: ANSWER })]);

    const run = await api.run(agentWorkflow({ provider: 'unpriced' }, { max_cost: 1 }));

    expect(run).toMatchObject({ status: 'failed', stop_reason: 'run_cost_budget' });
    expect(run.error).toMatch(/cost is unknown/);
  });

  it('should refuse a max_cost that is not a positive number, naming it', async () => {
    const response = await api.runInline(agentWorkflow({ provider: 'priced' }, { max_cost: 0 }), { question: 'x' });
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain('max_cost');
  });
});
