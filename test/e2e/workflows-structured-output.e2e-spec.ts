import request from 'supertest';
import { PROTOCOL_KITS, type KitServer, type ProtocolKit } from '../support/protocol-kits';
import type { RecordedRequest } from '../support/openai-test-server';
import { readRunEvents } from '../support/sse';
import { ADMIN_KEY, bearer } from '../support/test-app';
import { agentWorkflow } from '../support/workflow-fixtures';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';
import { WorkflowApi } from '../support/workflow-api';

/** Strict-compatible: every object closed, every property required. */
const weather = {
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'number' } },
  required: ['city', 'celsius'],
  additionalProperties: false,
};

/** Not strict-compatible (an optional property, an open object, minLength): OpenAI gets strict: false. */
const loose = {
  type: 'object',
  properties: { city: { type: 'string', minLength: 2 }, note: { type: 'string' } },
  required: ['city'],
};

type Json = Record<string, unknown>;

/** The structured-output field of a recorded request, in the protocol's own shape. */
const STRUCTURED_FIELD: Record<string, (body: Json) => unknown> = {
  'openai-chat': (body) => body.response_format,
  'openai-responses': (body) => (body.text as Json | undefined)?.format,
  anthropic: (body) => (body.output_config as Json | undefined)?.format,
  ollama: (body) => body.format,
};

/** What each protocol must have been sent for `schema` (`strict` as the node decides it). */
const EXPECTED_FIELD: Record<string, (schema: Json, strict: boolean) => unknown> = {
  'openai-chat': (schema, strict) => ({ type: 'json_schema', json_schema: { name: 'llm-1', schema, strict } }),
  'openai-responses': (schema, strict) => ({ type: 'json_schema', name: 'llm-1', schema, strict }),
  anthropic: (schema) => ({
    type: 'json_schema',
    schema: expect.objectContaining({ type: 'object', additionalProperties: false, required: schema.required }),
  }),
  ollama: (schema) => schema,
};

/** The text of every user turn of a request, whatever the protocol's message shape. */
const userTexts = (recorded: RecordedRequest): string[] => {
  const turns = (recorded.body.messages ?? recorded.body.input) as Json[];
  return turns
    .filter((turn) => turn.role === 'user')
    .flatMap((turn) =>
      typeof turn.content === 'string' ? [turn.content] : (turn.content as Json[]).map((block) => String(block.text)),
    );
};

describe('Structured output of the LLM node (e2e)', () => {
  let stack: WorkflowStack | undefined;
  let api: WorkflowApi;
  const http = () => {
    if (stack === undefined) throw new Error('the stack starts in beforeAll');
    return stack.app.http;
  };
  const servers = new Map<string, KitServer>();

  beforeAll(async () => {
    for (const kit of PROTOCOL_KITS) servers.set(kit.protocol, await kit.start());
    const providers = Object.fromEntries(
      PROTOCOL_KITS.map((kit) => [
        kit.protocol,
        {
          protocol: kit.protocol,
          base_url: servers.get(kit.protocol)?.baseUrl,
          api_key: 'test-key',
          default_model: 'test-model',
          max_retries: 0,
        },
      ]),
    );
    stack = await startWorkflowStack(() => ({ LLM_PROVIDERS: JSON.stringify(providers) }));
    api = new WorkflowApi(stack.app.http, ADMIN_KEY);
  });

  afterEach(() => {
    for (const server of servers.values()) server.reset();
  });

  afterAll(async () => {
    await stack?.close();
    for (const server of servers.values()) await server.close();
  });

  const workflow = (protocol: string, schema: Json, extra: Json = {}) => {
    const definition = agentWorkflow({ provider: protocol, output_schema: schema, ...extra });
    const end = { id: 'end', type: 'end', data: { outputs: { city: '{{llm-1.data.city}}', raw: '{{llm-1.output}}' } } };
    return { ...definition, nodes: [...definition.nodes.slice(0, 2), end] };
  };
  const llmNodeOf = async (runId: string) => (await api.getRun(runId)).nodes?.find((node) => node.node_id === 'llm-1');

  describe.each(PROTOCOL_KITS.map((kit) => [kit.protocol, kit] as const))('on %s', (protocol, kit: ProtocolKit) => {
    const server = () => servers.get(protocol) as KitServer;

    it('should send the schema natively, send an invalid answer back once with its errors and output the fixed one', async () => {
      server().script([kit.text('{"town":"Paris","celsius":21}'), kit.text('{"city":"Paris","celsius":21}')]);

      const run = await api.run(workflow(protocol, weather), { question: 'Weather in Paris as JSON?' });

      expect(run).toMatchObject({ status: 'succeeded', outputs: { city: 'Paris' } });
      const [first, second] = server().requests;
      expect(STRUCTURED_FIELD[protocol](first.body)).toEqual(EXPECTED_FIELD[protocol](weather, true));
      expect(STRUCTURED_FIELD[protocol](second.body)).toEqual(STRUCTURED_FIELD[protocol](first.body));
      const feedback = userTexts(second).at(-1) ?? '';
      expect(feedback).toContain('Your answer does not match the required JSON Schema');
      expect(feedback).toContain('/city: is required but missing');
      expect(feedback).toContain('/town: is not an allowed property');

      const node = await llmNodeOf(run.id);
      expect(node?.output).toMatchObject({
        data: { city: 'Paris', celsius: 21 },
        output: '{"city":"Paris","celsius":21}',
        output_retries: 1,
        usage: { model_calls: 2 },
      });
      const { events } = await readRunEvents(http(), run.id, ADMIN_KEY);
      const retries = events.filter((event) => event.event === 'llm.output_retry');
      expect(retries.map((event) => event.data)).toEqual([
        {
          at: expect.any(String),
          node_id: 'llm-1',
          attempt: 1,
          errors: [
            expect.stringMatching(/^\/city: is required but missing/),
            expect.stringMatching(/^\/town: is not an allowed property/),
          ],
        },
      ]);
    });

    it('should fail the node with the errors when the answer still does not match after its retry', async () => {
      server().script([kit.text('It is 21 °C in Paris.'), kit.text('{"city":"P"}')]);

      const run = await api.run(workflow(protocol, loose), { question: 'Weather in Paris as JSON?' });

      expect(run.status).toBe('failed');
      expect(run.error).toContain('the answer does not match output_schema after 1 retry');
      expect(run.error).toContain('/city: must NOT have fewer than 2 characters');
      expect(server().requests).toHaveLength(2);
      expect(STRUCTURED_FIELD[protocol](server().requests[0].body)).toEqual(EXPECTED_FIELD[protocol](loose, false));
      expect(userTexts(server().requests[1]).at(-1)).toContain('the answer is not JSON');
      const node = await llmNodeOf(run.id);
      expect(node?.status).toBe('failed');
      expect(node?.output).toMatchObject({
        output: '{"city":"P"}',
        output_retries: 1,
        output_errors: [expect.stringMatching(/^\/city: must NOT have fewer than 2 characters/)],
      });
      expect(node?.output).not.toHaveProperty('data');
    });
  });

  it('should refuse at save an output_schema that is not an object schema, naming the field', async () => {
    const response = await request(http())
      .post('/api/v1/workflows')
      .set(bearer(ADMIN_KEY))
      .send(workflow('openai-chat', { type: 'string' }));

    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain('output_schema');
    expect(JSON.stringify(response.body)).toContain('the root of an output_schema must have \\"type\\": \\"object\\"');
  });

  it('should refuse at save a reference into data that output_schema does not have', async () => {
    const definition = workflow('openai-chat', weather);
    const end = { id: 'end', type: 'end', data: { outputs: { town: '{{llm-1.data.town}}' } } };

    const response = await request(http())
      .post('/api/v1/workflows')
      .set(bearer(ADMIN_KEY))
      .send({ ...definition, nodes: [...definition.nodes.slice(0, 2), end] });

    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain('{{llm-1.data.town}}');
  });

  it('should take a ```json fenced answer that parses and matches with no retry, and mark it repaired', async () => {
    const kit = PROTOCOL_KITS[0];
    const fenced = '```json\n{"city":"Paris","celsius":21}\n```';
    servers.get(kit.protocol)?.script([kit.text(fenced)]);

    const run = await api.run(workflow(kit.protocol, weather), { question: 'JSON?' });

    expect(run).toMatchObject({ status: 'succeeded', outputs: { city: 'Paris', raw: fenced } });
    expect(servers.get(kit.protocol)?.requests).toHaveLength(1);
    expect((await llmNodeOf(run.id))?.output).toMatchObject({
      data: { city: 'Paris', celsius: 21 },
      text: fenced,
      output_retries: 0,
      output_repaired: 'fenced',
    });
  });

  it('should take output_retries 0: the first invalid answer fails the node', async () => {
    const kit = PROTOCOL_KITS[0];
    servers.get(kit.protocol)?.script([kit.text('{"city":"Paris"}')]);

    const run = await api.run(workflow(kit.protocol, weather, { output_retries: 0 }), { question: 'JSON?' });

    expect(run.status).toBe('failed');
    expect(run.error).toContain('after 0 retries: /celsius: is required but missing');
    expect(servers.get(kit.protocol)?.requests).toHaveLength(1);
  });
});
