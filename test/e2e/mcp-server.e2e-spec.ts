import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import request from 'supertest';
import { toolBody } from '../factories/tool.factory';
import { ADMIN_KEY, bearer, startTestApp, type TestApp } from '../support/test-app';

describe('MCP server at /mcp (e2e)', () => {
  let sut: TestApp;
  let origin: string;
  let alice: string;
  let bob: string;
  const clients: Client[] = [];

  const connect = async (key: string): Promise<Client> => {
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  };

  const textOf = (result: CallToolResult): string =>
    result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');

  beforeAll(async () => {
    sut = await startTestApp();
    await sut.app.listen(0, '127.0.0.1');
    origin = `http://127.0.0.1:${((sut.app.getHttpServer() as Server).address() as AddressInfo).port}`;
    alice = await sut.createUserKey('alice');
    bob = await sut.createUserKey('bob');
    await request(sut.http)
      .post('/api/v1/tools')
      .set(bearer(alice))
      .send(toolBody({ name: 'alice_add', description: 'Adds two numbers (alice)' }))
      .expect(201);
    await request(sut.http)
      .post('/api/v1/tools')
      .set(bearer(alice))
      .send(
        toolBody({
          name: 'alice_wipe',
          effect: 'dangerous',
          implementation_config: { language: 'javascript', code: 'return "wiped";' },
        }),
      )
      .expect(201);
    await request(sut.http)
      .post('/api/v1/workflows')
      .set(bearer(alice))
      .send({
        name: 'shout',
        inputs: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        nodes: [
          { id: 'start', type: 'start', data: {} },
          { id: 'loud', type: 'template', data: { template: '{{inputs.text}}!' } },
          { id: 'end', type: 'end', data: { outputs: { result: '{{loud.output}}' } } },
        ],
        edges: [
          { source: 'start', target: 'loud' },
          { source: 'loud', target: 'end' },
        ],
      })
      .expect(201);
    await request(sut.http)
      .post('/api/v1/tools')
      .set(bearer(alice))
      .send(
        toolBody({
          name: 'alice_shout',
          description: 'Shouts the text',
          function_schema: { name: 'alice_shout', description: 'Shouts the text' },
          implementation_type: 'workflow',
          implementation_config: { workflow_id: 'shout' },
          effect: 'read_only',
        }),
      )
      .expect(201);
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await sut.close();
  });

  it('should list the enabled tools the key may use, with parameters as inputSchema and annotations from the effect', async () => {
    const client = await connect(alice);

    const { tools } = await client.listTools();

    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['alice_add', 'alice_wipe', 'alice_shout', 'calculator']));
    expect(tools.find((tool) => tool.name === 'alice_add')).toEqual({
      name: 'alice_add',
      description: 'Adds two numbers',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    });
    expect(tools.find((tool) => tool.name === 'alice_wipe')?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
    expect(tools.find((tool) => tool.name === 'alice_shout')?.inputSchema).toMatchObject({
      properties: { text: { type: 'string' } },
    });
  });

  it('should run a call through the registry and log it', async () => {
    const client = await connect(alice);

    const result = (await client.callTool({ name: 'alice_add', arguments: { a: 2, b: 3 } })) as CallToolResult;

    expect(result.isError).toBeUndefined();
    expect(JSON.parse(textOf(result))).toEqual({ sum: 5 });
    const logs = await request(sut.http).get('/api/v1/tools/alice_add/logs').set(bearer(alice)).expect(200);
    expect(logs.body).toMatchObject({ total: 1, items: [{ status: 'success', user_id: 'alice' }] });
  });

  it('should run a workflow exposed as a tool', async () => {
    const client = await connect(alice);

    const result = (await client.callTool({ name: 'alice_shout', arguments: { text: 'hey' } })) as CallToolResult;

    expect(result.isError).toBeUndefined();
    expect(JSON.parse(textOf(result))).toEqual({ result: 'hey!' });
  });

  it('should not run a tool that requires approval, answering isError with why', async () => {
    const client = await connect(alice);

    const result = (await client.callTool({ name: 'alice_wipe', arguments: { a: 1, b: 2 } })) as CallToolResult;

    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/needs a person's approval.*was not run.*only run inside a ToolFlow workflow run/);
    const logs = await request(sut.http).get('/api/v1/tools/alice_wipe/logs').set(bearer(alice)).expect(200);
    expect(logs.body).toMatchObject({ total: 0 });
  });

  it('should answer invalid arguments with isError and the field errors', async () => {
    const client = await connect(alice);

    const result = (await client.callTool({ name: 'alice_add', arguments: { a: 'two' } })) as CallToolResult;

    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toContain('Invalid arguments for tool "alice_add"');
    expect(text).toMatch(/- \/a: .*received "two"; expected number/);
    expect(text).toMatch(/- \/b: is required but missing/);
  });

  it("should not show or run another user's private tool", async () => {
    const client = await connect(bob);

    const { tools } = await client.listTools();
    const result = (await client.callTool({ name: 'alice_add', arguments: { a: 1, b: 2 } })) as CallToolResult;

    expect(tools.map((tool) => tool.name)).not.toContain('alice_add');
    expect(tools.map((tool) => tool.name)).toContain('calculator');
    expect(result).toMatchObject({ isError: true });
    expect(textOf(result)).toContain('Unknown tool "alice_add"');
  });

  it('should leave disabled tools out of the list', async () => {
    await request(sut.http).patch('/api/v1/tools/alice_wipe').set(bearer(alice)).send({ enabled: false }).expect(200);
    const client = await connect(alice);

    const { tools } = await client.listTools();

    expect(tools.map((tool) => tool.name)).not.toContain('alice_wipe');
    await request(sut.http).patch('/api/v1/tools/alice_wipe').set(bearer(alice)).send({ enabled: true }).expect(200);
  });

  it('should answer 401 without a valid API key', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

    const missing = await fetch(`${origin}/mcp`, { method: 'POST', headers, body: JSON.stringify(initialize) });
    const wrong = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer tf_not_a_key' },
      body: JSON.stringify(initialize),
    });

    expect(missing.status).toBe(401);
    expect(wrong.status).toBe(401);
    await expect(connect('tf_not_a_key')).rejects.toThrow();
  });

  it('should open the event stream on GET', async () => {
    const controller = new AbortController();
    const response = await fetch(`${origin}/mcp`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}`, accept: 'text/event-stream' },
      signal: controller.signal,
    });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    controller.abort();
  });
});
