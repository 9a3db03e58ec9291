import request from 'supertest';
import { type OpenAITestServer, reply } from '../support/openai-test-server';
import { parsePrometheusText, sampleValue } from '../support/prometheus-text';
import { ADMIN_KEY, startTestApp, type TestApp } from '../support/test-app';
import { type ToolBackend } from '../support/tool-backend';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow, httpToolBody } from '../support/workflow-fixtures';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';

describe('Prometheus metrics (e2e)', () => {
  let stack: WorkflowStack | undefined;
  let app: TestApp;
  let llm: OpenAITestServer;
  let backend: ToolBackend;
  let api: WorkflowApi;

  const scrape = async () => {
    const response = await request(app.http).get('/metrics').expect(200);
    return parsePrometheusText(response.text);
  };

  beforeAll(async () => {
    stack = await startWorkflowStack();
    ({ app, llm, backend } = stack);
    api = new WorkflowApi(app.http, ADMIN_KEY);
    await api.createTool(httpToolBody('metrics_weather', `${backend.origin}/weather?city={id}`));
  });

  afterEach(() => llm.reset());

  afterAll(async () => {
    await stack?.close();
  });

  it('should serve the Prometheus text format without an API key, default process metrics included', async () => {
    const response = await request(app.http).get('/metrics').expect(200);

    expect(response.headers['content-type']).toMatch(/^text\/plain;/);
    expect(response.headers['content-type']).toContain('version=0.0.4');
    expect(response.text).toContain('# TYPE toolflow_runs_finished_total counter');
    expect(response.text).toContain('# TYPE toolflow_run_duration_seconds histogram');
    expect(response.text).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(response.text).toContain('# TYPE nodejs_heap_size_used_bytes gauge');
  });

  it('should count a run with one model tool call: runs, nodes, model calls, tokens and tool calls', async () => {
    llm.script([
      reply.toolCalls([{ name: 'metrics_weather', id: 'call_m1', arguments: { id: 'Berlin' } }], {
        usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
      }),
      reply.text('Sunny in Berlin.', { usage: { prompt_tokens: 13, completion_tokens: 3, total_tokens: 16 } }),
    ]);
    const model = { provider: 'openai', model: 'test-model', outcome: 'success' };
    const tokens = (type: string) => ({ provider: 'openai', model: 'test-model', type });
    const tool = { tool: 'metrics_weather', status: 'success' };
    const before = await scrape();

    const run = await api.run(agentWorkflow({ tools: ['metrics_weather'] }), { question: 'Weather in Berlin?' });

    expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'Sunny in Berlin.' } });
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) =>
      sampleValue(after, name, labels) - sampleValue(before, name, labels);
    expect(moved('toolflow_runs_finished_total', { status: 'succeeded' })).toBe(1);
    expect(moved('toolflow_runs_finished_total', { status: 'failed' })).toBe(0);
    expect(moved('toolflow_run_duration_seconds_count', { status: 'succeeded' })).toBe(1);
    for (const nodeType of ['start', 'llm', 'end']) {
      expect(moved('toolflow_node_duration_seconds_count', { node_type: nodeType, status: 'succeeded' })).toBe(1);
    }
    expect(moved('toolflow_llm_calls_total', model)).toBe(2);
    expect(moved('toolflow_llm_call_duration_seconds_count', model)).toBe(2);
    expect(moved('toolflow_llm_tokens_total', tokens('prompt'))).toBe(24);
    expect(moved('toolflow_llm_tokens_total', tokens('completion'))).toBe(10);
    expect(moved('toolflow_tool_calls_total', tool)).toBe(1);
    expect(moved('toolflow_tool_call_duration_seconds_count', tool)).toBe(1);
    expect(sampleValue(after, 'toolflow_runs_queued')).toBe(0);
    expect(sampleValue(after, 'toolflow_runs_running')).toBe(0);
    expect(sampleValue(after, 'toolflow_code_sandbox_busy')).toBe(0);
    expect(sampleValue(after, 'toolflow_code_sandbox_capacity')).toBeGreaterThan(0);
  });

  it('should count a failed model call by its outcome and the run by status failed', async () => {
    llm.script([
      { kind: 'error', status: 400, body: { error: { message: 'bad request', type: 'invalid_request_error' } } },
    ]);
    const before = await scrape();

    const run = await api.run(agentWorkflow({}), { question: 'Hi?' });

    expect(run.status).toBe('failed');
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string>) =>
      sampleValue(after, name, labels) - sampleValue(before, name, labels);
    expect(moved('toolflow_runs_finished_total', { status: 'failed' })).toBe(1);
    expect(moved('toolflow_llm_calls_total', { provider: 'openai', model: 'test-model', outcome: 'error' })).toBe(1);
    expect(moved('toolflow_node_duration_seconds_count', { node_type: 'llm', status: 'failed' })).toBe(1);
  });

  it('should not serve /metrics when METRICS_ENABLED is false', async () => {
    const disabled = await startTestApp({ METRICS_ENABLED: 'false' });
    try {
      await request(disabled.http).get('/metrics').expect(404);
    } finally {
      await disabled.close();
    }
  });
});
