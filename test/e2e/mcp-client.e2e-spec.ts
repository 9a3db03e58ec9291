import { execFileSync } from 'node:child_process';
import request from 'supertest';
import { McpTestServer } from '../support/mcp-test-server';
import { reply } from '../support/openai-test-server';
import { ADMIN_KEY, bearer } from '../support/test-app';
import { WorkflowApi } from '../support/workflow-api';
import { agentWorkflow } from '../support/workflow-fixtures';
import { startWorkflowStack, type WorkflowStack } from '../support/workflow-stack';

const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

interface ToolBody {
  name: string;
  implementation_type: string;
  implementation_config: Record<string, unknown>;
  effect: string;
  enabled: boolean;
  description: string;
  function_schema: { function: { name: string; parameters: Record<string, unknown> } };
}
interface ServerBody {
  server: {
    id: string;
    name: string;
    env: Record<string, string>;
    headers: Record<string, string>;
    connected: boolean;
  };
  tools: ToolBody[];
  skipped: Array<{ tool: string; reason: string }>;
}
interface ExecuteBody {
  success: boolean;
  data: unknown;
  error: string | null;
  error_kind: string | null;
}

/** PIDs of the everything servers this process started. */
const everythingPids = (): number[] => {
  const lines = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return lines
    .split('\n')
    .filter((line) => line.includes('server-everything'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
};

describe('MCP client (e2e)', () => {
  let stack: WorkflowStack;
  let mcp: McpTestServer;
  const admin = bearer(ADMIN_KEY);

  const execute = async (tool: string, args: unknown, key = ADMIN_KEY, status = 200): Promise<ExecuteBody> => {
    const response = await request(stack.app.http)
      .post(`/api/v1/tools/${tool}/execute`)
      .set(bearer(key))
      .send({ arguments: args })
      .expect(status);
    return response.body as ExecuteBody;
  };

  const registerEverything = async (name: string, env: Record<string, string> = {}): Promise<ServerBody> => {
    const response = await request(stack.app.http)
      .post('/api/v1/mcp-servers')
      .set(admin)
      .send({ name, transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], env })
      .expect(201);
    return response.body as ServerBody;
  };

  beforeAll(async () => {
    stack = await startWorkflowStack();
    mcp = await McpTestServer.start();
  });

  afterEach(() => {
    stack.llm.reset();
  });

  afterAll(async () => {
    await stack.close();
    await mcp.close();
  });

  describe('stdio: @modelcontextprotocol/server-everything', () => {
    it('should create one mcp tool per server tool, with the inputSchema as parameters and the effect from annotations', async () => {
      const body = await registerEverything('every1');

      const echo = body.tools.find((tool) => tool.name === 'every1__echo');
      expect(echo).toMatchObject({
        implementation_type: 'mcp',
        implementation_config: { server: 'every1', tool: 'echo' },
        effect: 'read_only',
        enabled: true,
      });
      expect(echo?.function_schema.function.parameters).toMatchObject({
        type: 'object',
        properties: { message: { type: 'string' } },
        required: ['message'],
      });
      const toggle = body.tools.find((tool) => tool.name === 'every1__toggle-simulated-logging');
      expect(toggle?.effect).toBe('mutating');
      expect(body.tools.length).toBeGreaterThan(5);
      expect(body.tools.every((tool) => /^[a-zA-Z0-9_-]{1,64}$/.test(tool.name))).toBe(true);
    });

    it('should run a tool through the registry and map text and image content', async () => {
      await registerEverything('every2');

      const echo = await execute('every2__echo', { message: 'hello' });
      expect(echo).toMatchObject({ success: true, data: 'Echo: hello' });

      const sum = await execute('every2__get-sum', { a: 2, b: 3 });
      expect(sum.success).toBe(true);
      expect(JSON.stringify(sum.data)).toContain('5');

      const image = await execute('every2__get-tiny-image', {});
      expect(image.success).toBe(true);
      expect(image.data).toEqual(
        expect.arrayContaining([expect.objectContaining({ type: 'image', mimeType: 'image/png' })]),
      );

      const invalid = await execute('every2__get-sum', { a: 'two', b: 3 }, ADMIN_KEY, 422);
      expect(invalid).toMatchObject({ success: false, error_kind: 'invalid_arguments' });
      expect(invalid.error).toContain('a');

      const logs = await request(stack.app.http).get('/api/v1/tools/every2__echo/logs').set(admin).expect(200);
      expect((logs.body as { total: number }).total).toBe(1);
    });

    it('should give the spawned server only its env and PATH, never the service environment, and mask secrets', async () => {
      const saved = { DATABASE_URL: process.env.DATABASE_URL, ADMIN_API_KEY: process.env.ADMIN_API_KEY };
      process.env.DATABASE_URL ??= 'mysql://toolflow:secret@127.0.0.1:3307/toolflow';
      process.env.ADMIN_API_KEY = 'tf_should_never_leak';
      try {
        const body = await registerEverything('every3', { GREETING: 'hi', SERVICE_TOKEN: 'tok-123456' });
        expect(body.server.env).toEqual({ GREETING: 'hi', SERVICE_TOKEN: '********' });

        const result = await execute('every3__get-env', {});
        const env = result.data as Record<string, string>;
        expect(env.GREETING).toBe('hi');
        expect(env.SERVICE_TOKEN).toBe('tok-123456');
        expect(env.PATH).toBeTruthy();
        expect(Object.keys(env).sort()).toEqual(['GREETING', 'PATH', 'SERVICE_TOKEN']);

        const list = await request(stack.app.http).get('/api/v1/mcp-servers').set(admin).expect(200);
        expect(JSON.stringify(list.body)).not.toContain('tok-123456');
      } finally {
        for (const [name, value] of Object.entries(saved)) {
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
        }
      }
    });

    it('should start the server again when its process dies', async () => {
      const before = new Set(everythingPids());
      await registerEverything('every4');
      const [pid] = everythingPids().filter((candidate) => !before.has(candidate));
      expect(pid).toBeGreaterThan(0);

      process.kill(pid, 'SIGKILL');
      const echo = await execute('every4__echo', { message: 'again' });

      expect(echo).toMatchObject({ success: true, data: 'Echo: again' });
      const restarted = everythingPids().filter((candidate) => !before.has(candidate));
      expect(restarted).toHaveLength(1);
      expect(restarted[0]).not.toBe(pid);
    });

    it('should refuse stdio servers to a user key and name the field', async () => {
      const key = await stack.app.createUserKey();
      const response = await request(stack.app.http)
        .post('/api/v1/mcp-servers')
        .set(bearer(key))
        .send({ name: 'sneaky', transport: 'stdio', command: 'sh', args: ['-c', 'env'] })
        .expect(403);
      expect((response.body as { errors: unknown[] }).errors).toEqual([
        { field: 'transport', message: expect.stringContaining('only admins') as string },
      ]);
    });

    it('should delete the server with its tools, and refuse while a stored workflow uses one unless forced', async () => {
      const body = await registerEverything('every5');
      const workflow = agentWorkflow({ tools: ['every5__echo'] });
      await request(stack.app.http).post('/api/v1/workflows').set(admin).send(workflow).expect(201);

      const refused = await request(stack.app.http)
        .delete(`/api/v1/mcp-servers/${body.server.id}`)
        .set(admin)
        .expect(409);
      expect(refused.body).toMatchObject({ dependants: [{ kind: 'workflow', name: workflow.name }] });
      await request(stack.app.http).get('/api/v1/tools/every5__echo').set(admin).expect(200);
      await request(stack.app.http).get('/api/v1/tools/every5__get-sum').set(admin).expect(200);

      await request(stack.app.http).delete(`/api/v1/mcp-servers/${body.server.id}?force=true`).set(admin).expect(204);

      await request(stack.app.http).get('/api/v1/tools/every5__echo').set(admin).expect(404);
      const list = await request(stack.app.http).get('/api/v1/mcp-servers').set(admin).expect(200);
      expect((list.body as { items: Array<{ name: string }> }).items.map((item) => item.name)).not.toContain('every5');
    });

    it('should let the LLM node of a workflow call an MCP tool', async () => {
      await registerEverything('every6');
      stack.llm.script([
        reply.toolCalls([{ name: 'every6__get-sum', id: 'call_sum', arguments: { a: 20, b: 22 } }]),
        reply.text('The sum is 42.'),
      ]);
      const api = new WorkflowApi(stack.app.http, ADMIN_KEY);

      const run = await api.run(agentWorkflow({ tools: ['every6__get-sum'] }), { question: 'What is 20 + 22?' });

      expect(run).toMatchObject({ status: 'succeeded', outputs: { answer: 'The sum is 42.' } });
      const second = stack.llm.requests[1].body as unknown as {
        messages: Array<{ role: string; tool_call_id?: string; content?: string }>;
      };
      const toolMessage = second.messages.find((message) => message.role === 'tool');
      expect(toolMessage).toMatchObject({ tool_call_id: 'call_sum' });
      expect(toolMessage?.content).toContain('42');
    });
  });

  describe('http: a Streamable HTTP server built with the SDK', () => {
    const weatherTool = (description: string) => ({
      tool: {
        name: 'get.weather',
        description,
        inputSchema: {
          type: 'object' as const,
          properties: { city: { type: 'string', pattern: '^(?=[A-Z])\\w+$' } },
          required: ['city'],
        },
        annotations: { idempotentHint: true },
      },
      call: (args: Record<string, unknown>) => ({
        content: [{ type: 'text' as const, text: `Sunny in ${String(args.city)}` }],
      }),
    });
    const failingTool = {
      tool: { name: 'explode', inputSchema: { type: 'object' as const }, annotations: { destructiveHint: true } },
      call: () => ({ isError: true, content: [{ type: 'text' as const, text: 'the reactor is offline' }] }),
    };
    /** Registers the test server over http under `name`; its id. */
    const addHttpServer = async (name: string): Promise<string> => {
      const created = await request(stack.app.http)
        .post('/api/v1/mcp-servers')
        .set(admin)
        .send({ name, transport: 'http', url: mcp.url })
        .expect(201);
      return (created.body as ServerBody).server.id;
    };
    const syncServer = async (id: string) =>
      (await request(stack.app.http).post(`/api/v1/mcp-servers/${id}/sync`).set(admin).expect(200)).body as {
        server: { vanished_tools: string[] };
        skipped: Array<{ tool: string; reason: string; kept_tool: string | null }>;
        updated: string[];
        disabled: string[];
      };
    const toolNamed = async (name: string) =>
      (await request(stack.app.http).get(`/api/v1/tools/${name}`).set(admin).expect(200)).body as ToolBody;
    const enabledOf = async (name: string) => (await toolNamed(name)).enabled;

    it('should import, call, sync and mask the headers of an http server', async () => {
      mcp.tools = [weatherTool('Weather for a city'), failingTool];
      const created = await request(stack.app.http)
        .post('/api/v1/mcp-servers')
        .set(admin)
        .send({ name: 'remote', transport: 'http', url: mcp.url, headers: { Authorization: 'Bearer remote-secret' } })
        .expect(201);
      const body = created.body as ServerBody;

      expect(body.server.headers).toEqual({ Authorization: '********' });
      expect(mcp.requests.every((recorded) => recorded.headers.authorization === 'Bearer remote-secret')).toBe(true);
      const weather = body.tools.find((tool) => tool.name === 'remote__get_weather');
      expect(weather).toMatchObject({ effect: 'idempotent', implementation_config: { tool: 'get.weather' } });
      // The lookahead is beyond the linear-time regex engine: the pattern is dropped, with a note.
      expect(weather?.function_schema.function.parameters).toEqual({
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      });
      expect(weather?.description).toContain('Schema adjusted on import: removed /properties/city/pattern');
      expect(body.tools.find((tool) => tool.name === 'remote__explode')?.effect).toBe('dangerous');

      expect(await execute('remote__get_weather', { city: 'Oslo' })).toMatchObject({
        success: true,
        data: 'Sunny in Oslo',
      });
      expect(mcp.calls.at(-1)).toEqual({ name: 'get.weather', arguments: { city: 'Oslo' } });
      expect(await execute('remote__explode', {})).toMatchObject({
        success: false,
        error: 'Error: the reactor is offline',
      });

      mcp.tools = [weatherTool('Weather for a city, now in Celsius'), weatherTool('x')].slice(0, 1);
      mcp.tools.push({
        tool: { name: 'forecast', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
        call: () => ({ content: [{ type: 'text', text: 'rain' }] }),
      });
      const synced = await request(stack.app.http)
        .post(`/api/v1/mcp-servers/${body.server.id}/sync`)
        .set(admin)
        .expect(200);
      expect(synced.body).toMatchObject({
        added: ['remote__forecast'],
        updated: ['remote__get_weather'],
        disabled: ['remote__explode'],
      });
      const explode = await request(stack.app.http).get('/api/v1/tools/remote__explode').set(admin).expect(200);
      expect((explode.body as ToolBody).enabled).toBe(false);
      const weatherNow = await request(stack.app.http).get('/api/v1/tools/remote__get_weather').set(admin).expect(200);
      expect((weatherNow.body as ToolBody).description).toContain('now in Celsius');
    });

    it('should keep a tool disabled by hand disabled on sync, and enable again one that sync disabled', async () => {
      mcp.tools = [weatherTool('Weather'), failingTool];
      const id = await addHttpServer('kept');
      await request(stack.app.http)
        .patch('/api/v1/tools/kept__get_weather')
        .set(admin)
        .send({ enabled: false })
        .expect(200);

      mcp.tools = [weatherTool('Weather, changed')];
      const first = await syncServer(id);
      expect(first).toMatchObject({ updated: ['kept__get_weather'], disabled: ['kept__explode'] });
      mcp.tools = [weatherTool('Weather, changed'), failingTool];
      const second = await syncServer(id);

      expect(second).toMatchObject({ updated: ['kept__explode'], disabled: [] });
      expect([await enabledOf('kept__get_weather'), await enabledOf('kept__explode')]).toEqual([false, true]);
    });

    it('should list every tool the server no longer offers as vanished, also one gone since an older sync or disabled by hand', async () => {
      const forecastTool = {
        tool: { name: 'forecast', inputSchema: { type: 'object' as const }, annotations: { readOnlyHint: true } },
        call: () => ({ content: [{ type: 'text' as const, text: 'rain' }] }),
      };
      mcp.tools = [weatherTool('Weather'), failingTool, forecastTool];
      const id = await addHttpServer('gone');
      const sync = () => syncServer(id);

      mcp.tools = [weatherTool('Weather'), forecastTool];
      expect(await sync()).toMatchObject({ server: { vanished_tools: ['explode'] }, disabled: ['gone__explode'] });
      await request(stack.app.http)
        .patch('/api/v1/tools/gone__forecast')
        .set(admin)
        .send({ enabled: false })
        .expect(200);
      mcp.tools = [weatherTool('Weather')];
      expect(await sync()).toMatchObject({ server: { vanished_tools: ['explode', 'forecast'] }, disabled: [] });
      expect(await sync()).toMatchObject({ server: { vanished_tools: ['explode', 'forecast'] }, disabled: [] });
      const listed = await request(stack.app.http).get('/api/v1/mcp-servers').set(admin).expect(200);
      expect((listed.body as { items: Array<{ id: string }> }).items.find((server) => server.id === id)).toMatchObject({
        vanished_tools: ['explode', 'forecast'],
      });

      mcp.tools = [weatherTool('Weather'), failingTool, forecastTool];
      expect(await sync()).toMatchObject({ server: { vanished_tools: [] }, disabled: [] });
      expect([await enabledOf('gone__explode'), await enabledOf('gone__forecast')]).toEqual([true, false]);
    });

    it('should report a still offered tool whose schema cannot be imported as skipped and keep its earlier import as it was', async () => {
      const brokenSchema = { type: 'object' as const, properties: { city: { $ref: '#/$defs/missing' } } };
      const weather = weatherTool('Weather, now with a broken schema');
      const brokenWeather = { ...weather, tool: { ...weather.tool, inputSchema: brokenSchema } };
      mcp.tools = [weatherTool('Weather'), failingTool];
      const id = await addHttpServer('unimportable');
      const sync = () => syncServer(id);

      mcp.tools = [brokenWeather, failingTool];
      const first = await sync();

      expect(first).toMatchObject({ server: { vanished_tools: [] }, disabled: [], updated: [] });
      expect(first.skipped).toEqual([
        {
          tool: 'get.weather',
          reason: expect.stringMatching(/^inputSchema: .*missing/) as string,
          kept_tool: 'unimportable__get_weather',
        },
      ]);
      const kept = await toolNamed('unimportable__get_weather');
      expect(kept).toMatchObject({ enabled: true, description: expect.stringContaining('Weather') as string });
      expect(kept.function_schema.function.parameters).toMatchObject({ properties: { city: { type: 'string' } } });
      expect(await execute('unimportable__get_weather', { city: 'Oslo' })).toMatchObject({ success: true });

      // One that a sync disabled stays disabled while unimportable, and comes back once it can be imported.
      mcp.tools = [brokenWeather];
      expect(await sync()).toMatchObject({ disabled: ['unimportable__explode'] });
      mcp.tools = [brokenWeather, { ...failingTool, tool: { ...failingTool.tool, inputSchema: brokenSchema } }];
      const third = await sync();
      expect(third).toMatchObject({ server: { vanished_tools: [] }, disabled: [] });
      expect(third.skipped.map((entry) => entry.kept_tool)).toEqual([
        'unimportable__get_weather',
        'unimportable__explode',
      ]);
      expect((await toolNamed('unimportable__explode')).enabled).toBe(false);
      mcp.tools = [weatherTool('Weather'), failingTool];
      expect(await sync()).toMatchObject({ updated: ['unimportable__explode'], skipped: [] });
      expect((await toolNamed('unimportable__explode')).enabled).toBe(true);
    });

    it('should let a user register an http server and own its tools', async () => {
      mcp.tools = [weatherTool('Weather')];
      const key = await stack.app.createUserKey();
      const created = await request(stack.app.http)
        .post('/api/v1/mcp-servers')
        .set(bearer(key))
        .send({ name: 'users-remote', transport: 'http', url: mcp.url })
        .expect(201);
      expect((created.body as ServerBody).tools.map((tool) => tool.name)).toEqual(['users-remote__get_weather']);
      expect(await execute('users-remote__get_weather', { city: 'Rome' }, key)).toMatchObject({ success: true });

      const other = await stack.app.createUserKey();
      await request(stack.app.http).get('/api/v1/tools/users-remote__get_weather').set(bearer(other)).expect(404);
      await request(stack.app.http).post('/api/v1/mcp-servers/users-remote/sync').set(bearer(other)).expect(404);

      // Server names are per owner: another user may use the same one, and a second one of the same owner is a 409.
      await request(stack.app.http)
        .post('/api/v1/mcp-servers')
        .set(bearer(other))
        .send({ name: 'users-remote', transport: 'http', url: mcp.url })
        .expect(201);
      expect(await execute('users-remote__get_weather', { city: 'Bern' }, other)).toMatchObject({ success: true });
      await request(stack.app.http)
        .post('/api/v1/mcp-servers')
        .set(bearer(key))
        .send({ name: 'users-remote', transport: 'http', url: mcp.url })
        .expect(409);
    });

    it('should refuse a URL the SSRF policy blocks, naming the url field', async () => {
      const response = await request(stack.app.http)
        .post('/api/v1/mcp-servers')
        .set(admin)
        .send({ name: 'metadata', transport: 'http', url: 'http://169.254.169.254/mcp' })
        .expect(400);
      expect((response.body as { errors: Array<{ field: string; message: string }> }).errors).toEqual([
        { field: 'url', message: expect.stringContaining('blocked') as string },
      ]);
    });

    it('should answer 422 naming the url when nothing speaks MCP there', async () => {
      const response = await request(stack.app.http)
        .post('/api/v1/mcp-servers')
        .set(admin)
        .send({ name: 'nothing', transport: 'http', url: `${stack.backend.origin}/not-mcp` })
        .expect(422);
      expect((response.body as { errors: Array<{ field: string }> }).errors[0].field).toBe('url');
    });
  });
});
