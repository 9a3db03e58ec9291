import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type OpenAITestServer, reply } from '../support/openai-test-server';
import { type TestApp } from '../support/test-app';
import { type ToolBackend } from '../support/tool-backend';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';
import { type RunBody, WorkflowApi } from '../support/workflow-api';

const example = (path: string) =>
  JSON.parse(readFileSync(join(__dirname, '..', '..', 'examples', path), 'utf8')) as Record<string, unknown>;

type Message = { role: string; content: string | null; tool_call_id?: string };

describe('examples/ (e2e)', () => {
  let stack: WorkflowStack | undefined;
  let app: TestApp;
  let llm: OpenAITestServer;
  let backend: ToolBackend;
  let api: WorkflowApi;

  beforeAll(async () => {
    stack = await startWorkflowStack();
    ({ app, llm, backend } = stack);
    api = new WorkflowApi(app.http, await app.createUserKey('example-user'));
  });

  afterAll(async () => {
    await stack?.close();
  });

  const weatherTurns = (city: string) => [
    reply.toolCalls([{ name: 'http_request', arguments: { url: `${backend.origin}/weather?city=${city}` } }]),
    reply.text(`${city}: 21 °C, sunny.`),
  ];

  it('should save and run examples/weather.json as written', async () => {
    llm.script(weatherTurns('Beijing'));
    const saved = await api.post('/workflows', example('weather.json')).expect(201);
    const { id } = saved.body as { id: string };

    const response = await api
      .post(`/workflows/${id}/runs?wait=true`, { inputs: { question: '北京天气？' } })
      .expect(200);

    expect(response.body).toMatchObject({ status: 'succeeded', outputs: { answer: 'Beijing: 21 °C, sunny.' } });
    const first = llm.requests[0].body;
    expect(first).toMatchObject({ model: 'gpt-4o', temperature: 0.7, max_tokens: 1024 });
    expect((first.messages as Message[]).map((message) => message.role)).toEqual(['system', 'user']);
    expect((first.messages as Message[])[1].content).toBe('请帮助用户解决问题，可以使用工具获取信息。北京天气？');
  });

  it('should run examples/travel-advisor.json with its code tool and workflow tool', async () => {
    for (const tool of ['to_fahrenheit.json', 'weather_report.json']) await api.createTool(example(`tools/${tool}`));
    const saved = await api.post('/workflows', example('travel-advisor.json')).expect(201);
    llm.reset();
    llm.script([
      reply.toolCalls([{ name: 'to_fahrenheit', id: 'call_f', arguments: { celsius: 21 } }]),
      reply.toolCalls([{ name: 'weather_report', id: 'call_w', arguments: { question: 'Weather in Lisbon?' } }]),
      ...weatherTurns('Lisbon'),
      reply.text('Pack light clothes: 69.8 °F and sunny.'),
    ]);

    const response = await api
      .post(`/workflows/${(saved.body as { id: string }).id}/runs?wait=true`, { inputs: { city: 'Lisbon' } })
      .expect(200);

    const run = response.body as RunBody;
    expect(run).toMatchObject({ status: 'succeeded', outputs: { advice: 'Pack light clothes: 69.8 °F and sunny.' } });
    expect(run.nodes?.[1].tool_calls.map((call) => [call.tool_name, call.status])).toEqual([
      ['to_fahrenheit', 'success'],
      ['weather_report', 'success'],
    ]);
    const last = llm.requests.at(-1)?.body.messages as Message[];
    const answers = last.filter((message) => message.role === 'tool');
    expect(answers.map((message) => message.tool_call_id)).toEqual(['call_f', 'call_w']);
    expect(answers[0].content).toContain('69.8');
    expect(answers[1].content).toContain('Lisbon: 21 °C, sunny.');
    const children = await api.get('/runs?page_size=100').expect(200);
    expect((children.body as { items: Array<RunBody & { parent_run_id: string | null }> }).items).toEqual(
      expect.arrayContaining([expect.objectContaining({ parent_run_id: run.id, status: 'succeeded' })]),
    );
  });
});
