import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { type Client, createClient } from '../../console/src/api/generated/client';
import {
  createApiKey,
  createTool,
  createWorkflow,
  executeTool,
  getRun,
  getTool,
  listToolLogs,
  listTools,
  runWorkflow,
  updateTool,
} from '../../console/src/api/generated/sdk.gen';
import type { WorkflowDefinition } from '../../console/src/api/generated/types.gen';
import { reply } from '../support/openai-test-server';
import { ADMIN_KEY } from '../support/test-app';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';

const ROOT = join(__dirname, '..', '..');

interface SchemaObject {
  type?: string | string[];
  properties?: Record<string, SchemaObject>;
  discriminator?: { propertyName: string };
}

interface MediaObject {
  schema?: unknown;
  example?: { status?: number };
}

interface OperationObject {
  operationId: string;
  summary?: string;
  requestBody?: { content: Record<string, MediaObject> };
  responses: Record<string, { content?: Record<string, MediaObject> }>;
}
const COMMITTED_CLIENT = join(ROOT, 'console', 'src', 'api', 'generated');

/** examples/weather.json, typed by the generated client (compared with the file below). */
const weather: WorkflowDefinition = {
  name: 'weather',
  description: 'Answers weather questions with live data fetched by the model through http_request',
  inputs: {
    type: 'object',
    properties: {
      question: { type: 'string', description: 'A weather question, e.g. "北京今天天气怎么样？"' },
    },
    required: ['question'],
  },
  nodes: [
    { id: 'start', type: 'start', data: {} },
    {
      id: 'llm-1',
      type: 'llm',
      data: {
        label: '智能助手',
        provider: 'openai',
        model: 'gpt-4o',
        system:
          'You answer weather questions with live data. Fetch it with http_request: GET https://wttr.in/<city>?format=j1 returns the current conditions as JSON. Answer briefly, in the language of the question.',
        prompt: '请帮助用户解决问题，可以使用工具获取信息。{{inputs.question}}',
        enable_tools: true,
        tools: ['http_request'],
        temperature: 0.7,
        max_tokens: 1024,
        max_iterations: 5,
      },
    },
    { id: 'end', type: 'end', data: { outputs: { answer: '{{llm-1.output}}' } } },
  ],
  edges: [
    { source: 'start', target: 'llm-1' },
    { source: 'llm-1', target: 'end' },
  ],
};

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();

describe('Generated client (e2e)', () => {
  let stack: WorkflowStack;
  let baseUrl: string;
  let user: Client;

  beforeAll(async () => {
    stack = await startWorkflowStack();
    await stack.app.app.listen(0, '127.0.0.1');
    baseUrl = await stack.app.app.getUrl();
    const admin = createClient({ baseUrl, auth: ADMIN_KEY });
    const created = await createApiKey({
      client: admin,
      body: { name: 'walk-through', role: 'user' },
      throwOnError: true,
    });
    user = createClient({ baseUrl, auth: created.data.key });
  });

  afterAll(async () => {
    await stack.close();
  });

  it('should run the README walk-through with no cast', async () => {
    const { backend, llm } = stack;
    const add = await createTool({
      client: user,
      throwOnError: true,
      body: {
        name: 'add',
        description: 'Adds two numbers',
        category: 'math',
        effect: 'read_only',
        function_schema: {
          name: 'add',
          description: 'Adds two numbers',
          parameters: {
            type: 'object',
            properties: { a: { type: 'number' }, b: { type: 'number' } },
            required: ['a', 'b'],
          },
        },
        implementation_type: 'code',
        implementation_config: { language: 'javascript', code: 'return {sum: args.a + args.b}' },
      },
    });
    expect(add.response.status).toBe(201);
    const weatherTool = await createTool({
      client: user,
      throwOnError: true,
      body: {
        name: 'get_weather',
        description: 'Current weather for a city',
        effect: 'read_only',
        function_schema: {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Current weather for a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
        implementation_type: 'http',
        implementation_config: {
          url: `${backend.origin}/weather?city={city}`,
          method: 'GET',
          parse_mode: 'json',
          auth: { type: 'bearer', token: 'secret' },
          response_fields: ['temp_c'],
        },
      },
    });
    expect(weatherTool.data.implementation_config).toMatchObject({ auth: { token: '********' } });

    const math = await listTools({
      client: user,
      throwOnError: true,
      query: { category: 'math', page: 1, page_size: 20 },
    });
    expect(math.data.items.map((tool) => tool.name)).toContain('add');
    const byName = await getTool({ client: user, throwOnError: true, path: { id: 'add' } });
    expect(byName.data.id).toBe(add.data.id);
    const patched = await updateTool({
      client: user,
      throwOnError: true,
      path: { id: 'add' },
      headers: { 'If-Match': byName.response.headers.get('etag') ?? '' },
      body: { description: 'Adds two numbers exactly' },
    });
    expect(patched.data.version).toBe(2);

    const sum = await executeTool({
      client: user,
      throwOnError: true,
      path: { id: 'add' },
      body: { arguments: { a: 2, b: 3 } },
    });
    expect(sum.data).toMatchObject({ success: true, data: { sum: 5 }, error: null, error_kind: null });
    const invalid = await executeTool({ client: user, path: { id: 'add' }, body: { arguments: { a: 'two' } } });
    expect(invalid.response.status).toBe(422);
    expect(invalid.error).toMatchObject({
      success: false,
      errors: expect.arrayContaining([expect.objectContaining({ path: '/a', value: 'two' })]),
    });
    const forecast = await executeTool({
      client: user,
      throwOnError: true,
      path: { id: 'get_weather' },
      body: { arguments: '{"city": "Berlin"}' },
    });
    expect(forecast.data).toMatchObject({ success: true, data: { temp_c: 21 } });
    const logs = await listToolLogs({ client: user, throwOnError: true, path: { id: 'add' } });
    expect(logs.data.total).toBe(2);

    expect(weather).toEqual(JSON.parse(readFileSync(join(ROOT, 'examples', 'weather.json'), 'utf8')));
    const saved = await createWorkflow({ client: user, throwOnError: true, body: weather });
    expect(saved.data.definition.nodes).toHaveLength(3);
    llm.script([
      reply.toolCalls([{ name: 'http_request', arguments: { url: `${backend.origin}/weather?city=Beijing` } }]),
      reply.text('Beijing: 21 °C, sunny.'),
    ]);
    const run = await runWorkflow({
      client: user,
      throwOnError: true,
      path: { id: 'weather' },
      query: { wait: true },
      body: { inputs: { question: '北京今天天气怎么样?' } },
    });
    expect(run.data).toMatchObject({ status: 'succeeded', outputs: { answer: 'Beijing: 21 °C, sunny.' } });

    const details = await getRun({ client: user, throwOnError: true, path: { id: run.data.id } });
    const llmNode = details.data.nodes?.find((node) => node.node_id === 'llm-1');
    expect(llmNode?.tool_calls.map((call) => [call.tool_name, call.status])).toEqual([['http_request', 'success']]);
    expect(details.data.usage.model_calls).toBe(2);
  });

  it('should publish the contract the service keeps: schemas, examples, nullability, names', async () => {
    const document = (await (await fetch(`${baseUrl}/api/docs-json`)).json()) as {
      paths: Record<string, Record<string, OperationObject>>;
      components: { schemas: Record<string, SchemaObject> };
    };
    const operations = Object.values(document.paths).flatMap((path) => Object.values(path));
    const { schemas } = document.components;

    expect(operations.every((operation) => operation.summary && /^[a-z][A-Za-z]+$/.test(operation.operationId))).toBe(
      true,
    );
    for (const operation of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const problem = response.content?.['application/problem+json'];
        if (problem) expect({ status, example: problem.example?.status }).toEqual({ status, example: Number(status) });
      }
    }
    // The rate limit and a database outage can answer any authenticated operation.
    expect(
      operations.filter((operation) => !(['429', '503'] as const).every((status) => operation.responses[status])),
    ).toEqual([]);
    expect((operations[0].responses['503'] as { headers?: object }).headers).toHaveProperty('Retry-After');
    expect(document.paths['/api/v1/workflows'].post.requestBody?.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/SaveWorkflowRequest',
    });
    expect(schemas.CreateToolDto.discriminator?.propertyName).toBe('implementation_type');
    expect(schemas.ExecuteToolResponse.properties?.error_kind.type).toEqual(['string', 'null']);
    expect(
      document.paths['/api/v1/runs/{id}/events'].get.responses['200'].content?.['text/event-stream'].schema,
    ).toEqual({ $ref: '#/components/schemas/RunEventData' });
  });

  it('should be generated from the document the app serves now', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolflow-client-'));
    try {
      const document = await fetch(`${baseUrl}/api/docs-json`);
      writeFileSync(join(dir, 'openapi.json'), await document.text());
      const generated = spawnSync(
        process.execPath,
        [
          join(ROOT, 'node_modules', '@hey-api', 'openapi-ts', 'bin', 'run.js'),
          ...['-i', join(dir, 'openapi.json'), '-o', join(dir, 'client'), '-c', '@hey-api/client-fetch'],
          '--no-log-file',
          '--silent',
        ],
        { cwd: dir, encoding: 'utf8' },
      );
      expect(generated.stderr).toBe('');
      expect(filesUnder(join(dir, 'client'))).toEqual(filesUnder(COMMITTED_CLIENT));
      for (const file of filesUnder(COMMITTED_CLIENT)) {
        expect(`${file}:\n${readFileSync(join(dir, 'client', file), 'utf8')}`).toBe(
          `${file}:\n${readFileSync(join(COMMITTED_CLIENT, file), 'utf8')}`,
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
