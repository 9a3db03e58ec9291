import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { toolBody } from '../factories/tool.factory';
import { ADMIN_KEY, bearer, startTestApp, type TestApp } from '../support/test-app';

interface ExecuteBody {
  success: boolean;
  data: unknown;
  error: string | null;
  error_kind: string | null;
  metadata: Record<string, unknown>;
  errors?: Array<{ path: string; message: string; value: unknown }>;
}

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

async function startApiServer(): Promise<{ server: Server; url: string; requests: Recorded[] }> {
  const requests: Recorded[] = [];
  const server = createServer((incoming, response) => {
    let body = '';
    incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
    incoming.on('end', () => {
      requests.push({ method: incoming.method ?? '', url: incoming.url ?? '', headers: incoming.headers, body });
      if (incoming.url?.startsWith('/fail')) {
        response.writeHead(500, { 'content-type': 'text/plain' }).end('upstream exploded');
        return;
      }
      const city = new URL(incoming.url ?? '/', 'http://x').searchParams.get('city');
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ city, current: { temp_c: 21, condition: 'sunny' }, noise: 'x'.repeat(50) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

describe('Tool registry (e2e)', () => {
  let sut: TestApp;
  let api: Awaited<ReturnType<typeof startApiServer>>;
  let userKey: string;
  let fileRoot: string;

  beforeAll(async () => {
    api = await startApiServer();
    fileRoot = mkdtempSync(join(tmpdir(), 'toolflow-files-'));
    writeFileSync(join(fileRoot, 'notes.txt'), 'hello from the file root');
    sut = await startTestApp({ OUTBOUND_ALLOW_PRIVATE: '127.0.0.1/32', FILE_READ_ROOT: fileRoot });
    userKey = await sut.createUserKey('carol');
  });

  afterAll(async () => {
    await sut.close();
    await new Promise((resolve) => api.server.close(resolve));
  });

  const createTool = (body: Record<string, unknown>, key = userKey) =>
    request(sut.http).post('/api/v1/tools').set(bearer(key)).send(body).expect(201);

  const execute = (tool: string, args: unknown, key = userKey) =>
    request(sut.http).post(`/api/v1/tools/${tool}/execute`).set(bearer(key)).send({ arguments: args });

  const logsOf = async (tool: string, key = userKey) => {
    const response = await request(sut.http).get(`/api/v1/tools/${tool}/logs`).set(bearer(key)).expect(200);
    return response.body as { total: number; items: Array<{ status: string; input: string; output: string | null }> };
  };

  describe('code tools', () => {
    it('should run a code tool that echoes its arguments, and log the call', async () => {
      await createTool(
        toolBody({
          name: 'echo_code',
          function_schema: {
            name: 'echo_code',
            description: 'echo',
            parameters: { type: 'object', properties: { text: { type: 'string' }, n: { type: 'integer' } } },
          },
          implementation_config: { language: 'javascript', code: 'console.log("echoing"); return { echoed: args };' },
        }),
      );
      const response = await execute('echo_code', { text: '你好', n: 3 }).expect(200);
      const body = response.body as ExecuteBody;
      expect(body).toMatchObject({
        success: true,
        error: null,
        error_kind: null,
        data: { echoed: { text: '你好', n: 3 } },
      });
      expect(typeof body.metadata.duration_ms).toBe('number');
      const logs = await logsOf('echo_code');
      expect(logs.total).toBe(1);
      expect(logs.items[0]).toMatchObject({ status: 'success', input: '{"text":"你好","n":3}' });
      const tool = await request(sut.http).get('/api/v1/tools/echo_code').set(bearer(userKey)).expect(200);
      expect(tool.body.use_count).toBe(1);
    });

    it('should accept arguments as the JSON string a model sends, repairing it and saying so', async () => {
      const response = await execute('echo_code', '{"text": "a",}').expect(200);
      expect(response.body).toMatchObject({ success: true, data: { echoed: { text: 'a' } } });
      expect((response.body as ExecuteBody).metadata.repaired_arguments).toBe(true);
    });

    it('should answer 422 with each field error for invalid arguments, and log it', async () => {
      const response = await execute('echo_code', { text: 5, n: 'x' }).expect(422);
      const body = response.body as ExecuteBody;
      expect(body).toMatchObject({ success: false, error_kind: 'invalid_arguments' });
      expect(body.errors?.map((error) => error.path).sort()).toEqual(['/n', '/text']);
      expect(body.error).toMatch(/text/);
      const logs = await logsOf('echo_code');
      expect(logs.items[0].status).toBe('invalid_arguments');
    });

    it('should stop an infinite loop at the CPU limit and report a timeout-like execution error', async () => {
      await createTool(
        toolBody({
          name: 'spin',
          function_schema: { name: 'spin', description: 'spin', parameters: { type: 'object', properties: {} } },
          implementation_config: { language: 'javascript', code: 'while (true) {}', timeout_ms: 200 },
        }),
      );
      const response = await execute('spin', {}).expect(200);
      expect(response.body).toMatchObject({ success: false });
      expect((response.body as ExecuteBody).error).toMatch(/time limit|timed out/i);
      const health = await request(sut.http).get('/health').expect(200);
      expect(health.body.status).toBe('ok');
    });

    it('should reject code with a syntax error when the tool is saved', async () => {
      const response = await request(sut.http)
        .post('/api/v1/tools')
        .set(bearer(userKey))
        .send(toolBody({ name: 'broken_code', implementation_config: { language: 'javascript', code: 'return {' } }));
      expect(response.status).toBe(400);
      expect(JSON.stringify(response.body)).toMatch(/implementation_config\.code/);
    });
  });

  describe('http tools', () => {
    it('should call a local API with URL placeholders and keep only the selected fields', async () => {
      await createTool(
        toolBody({
          name: 'weather_http',
          function_schema: {
            name: 'weather_http',
            description: 'weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
          implementation_type: 'http',
          implementation_config: {
            url: `${api.url}/weather?city={city}`,
            method: 'GET',
            parse_mode: 'json',
            response_fields: ['city', 'current.temp_c'],
            auth: { type: 'bearer', token: 'upstream-secret' },
          },
        }),
      );
      const response = await execute('weather_http', { city: 'São Paulo' }).expect(200);
      const body = response.body as ExecuteBody;
      expect(body.success).toBe(true);
      expect(body.data).toEqual({ city: 'São Paulo', 'current.temp_c': 21 });
      expect(body.metadata.status_code).toBe(200);
      expect(typeof body.metadata.response_bytes).toBe('number');
      const received = api.requests.at(-1) as Recorded;
      expect(received.url).toBe('/weather?city=S%C3%A3o%20Paulo');
      expect(received.headers.authorization).toBe('Bearer upstream-secret');
      const stored = await request(sut.http).get('/api/v1/tools/weather_http').set(bearer(userKey)).expect(200);
      expect(JSON.stringify(stored.body)).not.toContain('upstream-secret');
      expect((await logsOf('weather_http')).items[0].status).toBe('success');
    });

    it('should tell the model the status and an excerpt when the API fails', async () => {
      await createTool(
        toolBody({
          name: 'failing_http',
          function_schema: { name: 'failing_http', description: 'x', parameters: { type: 'object', properties: {} } },
          implementation_type: 'http',
          effect: 'mutating',
          implementation_config: { url: `${api.url}/fail`, method: 'POST' },
        }),
      );
      const before = api.requests.length;
      const response = await execute('failing_http', {}).expect(200);
      expect(response.body).toMatchObject({ success: false, error_kind: 'execution_error' });
      expect((response.body as ExecuteBody).error).toMatch(/500[\s\S]*upstream exploded/);
      expect(api.requests.length - before).toBe(1);
      expect((await logsOf('failing_http')).items[0].status).toBe('error');
    });
  });

  describe('outbound safety', () => {
    it('should refuse an http tool aimed at 127.0.0.1 without the allowance, naming the rule', async () => {
      const strict = await startTestApp();
      try {
        const key = await strict.createUserKey('dave');
        await request(strict.http)
          .post('/api/v1/tools')
          .set(bearer(key))
          .send(
            toolBody({
              name: 'local_http',
              function_schema: { name: 'local_http', description: 'x', parameters: { type: 'object', properties: {} } },
              implementation_type: 'http',
              implementation_config: { url: `${api.url}/weather`, method: 'GET' },
            }),
          )
          .expect(201);
        const before = api.requests.length;
        const response = await request(strict.http)
          .post('/api/v1/tools/local_http/execute')
          .set(bearer(key))
          .send({ arguments: {} })
          .expect(200);
        expect(response.body).toMatchObject({ success: false, error_kind: 'forbidden' });
        expect((response.body as ExecuteBody).error).toMatch(/127\.0\.0\.1.*OUTBOUND_ALLOW_PRIVATE/);
        expect(api.requests.length).toBe(before);
        const logs = await request(strict.http).get('/api/v1/tools/local_http/logs').set(bearer(key)).expect(200);
        expect(logs.body.items[0].status).toBe('error');
      } finally {
        await strict.close();
      }
    });

    it('should refuse the builtin http_request to a metadata address', async () => {
      const response = await execute('http_request', { method: 'GET', url: 'http://169.254.169.254/latest/meta-data' });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ success: false, error_kind: 'forbidden' });
    });
  });

  describe('builtin tools', () => {
    it('should run calculator, current_time, file_read and http_request through the API', async () => {
      const calc = await execute('calculator', { expression: '2 * (3 + 4) ^ 2' }).expect(200);
      expect(calc.body.success).toBe(true);
      expect(calc.body.data).toEqual({ expression: '2 * (3 + 4) ^ 2', result: 98 });
      const time = await execute('current_time', { timezone: 'Asia/Shanghai' }).expect(200);
      expect(time.body.success).toBe(true);
      const file = await execute('file_read', { path: 'notes.txt' }).expect(200);
      expect(JSON.stringify(file.body.data)).toContain('hello from the file root');
      const escape = await execute('file_read', { path: '../../etc/passwd' }).expect(200);
      expect(escape.body).toMatchObject({ success: false, error_kind: 'forbidden' });
      const http = await execute('http_request', { method: 'GET', url: `${api.url}/weather?city=Oslo` }).expect(200);
      expect(http.body.success).toBe(true);
      expect(JSON.stringify(http.body.data)).toContain('Oslo');
    });

    it('should report an unknown tool as 404 and a disabled one as forbidden', async () => {
      await request(sut.http)
        .post('/api/v1/tools/nope/execute')
        .set(bearer(userKey))
        .send({ arguments: {} })
        .expect(404);
      await request(sut.http)
        .patch('/api/v1/tools/echo_code')
        .set(bearer(userKey))
        .send({ enabled: false })
        .expect(200);
      const response = await execute('echo_code', {}).expect(200);
      expect(response.body).toMatchObject({ success: false, error_kind: 'forbidden' });
      await request(sut.http).patch('/api/v1/tools/echo_code').set(bearer(userKey)).send({ enabled: true }).expect(200);
    });

    it("should show users only their own calls in a public tool's logs", async () => {
      const other = await sut.createUserKey('erin');
      await execute('calculator', { expression: '1+1' }, other).expect(200);
      const own = await logsOf('calculator', other);
      expect(own.total).toBe(1);
      const all = await request(sut.http).get('/api/v1/tools/calculator/logs').set(bearer(ADMIN_KEY)).expect(200);
      expect(all.body.total).toBeGreaterThan(1);
    });
  });

  describe('workflow tools', () => {
    it('should run a stored workflow as a tool and stop a workflow that calls itself at the depth limit', async () => {
      const workflow = {
        name: 'double_it',
        inputs: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        nodes: [
          { id: 'start', type: 'start', data: {} },
          { id: 'twice', type: 'template', data: { template: '{{inputs.text}} {{inputs.text}}' } },
          { id: 'end', type: 'end', data: { outputs: { result: '{{twice.output}}' } } },
        ],
        edges: [
          { source: 'start', target: 'twice' },
          { source: 'twice', target: 'end' },
        ],
      };
      await request(sut.http).post('/api/v1/workflows').set(bearer(userKey)).send(workflow).expect(201);
      await createTool(
        toolBody({
          name: 'double_tool',
          function_schema: {
            name: 'double_tool',
            description: 'doubles text',
            parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
          },
          implementation_type: 'workflow',
          effect: 'read_only',
          implementation_config: { workflow_id: 'double_it' },
        }),
      );
      const response = await execute('double_tool', { text: 'hi' }).expect(200);
      expect(response.body).toMatchObject({ success: true, data: { result: 'hi hi' } });

      const derived = await createTool(
        toolBody({
          name: 'double_derived',
          function_schema: { name: 'double_derived', description: 'doubles text' },
          implementation_type: 'workflow',
          effect: 'read_only',
          implementation_config: { workflow_id: 'double_it' },
        }),
      );
      expect(derived.body.function_schema.function.parameters).toEqual(workflow.inputs);
      const missing = await request(sut.http)
        .post('/api/v1/tools')
        .set(bearer(userKey))
        .send(
          toolBody({
            name: 'no_such_workflow_tool',
            function_schema: { name: 'no_such_workflow_tool', description: 'x' },
            implementation_type: 'workflow',
            implementation_config: { workflow_id: 'does_not_exist' },
          }),
        )
        .expect(400);
      expect(JSON.stringify(missing.body)).toMatch(/implementation_config\.workflow_id/);

      await createTool(
        toolBody({
          name: 'recurse_tool',
          function_schema: {
            name: 'recurse_tool',
            description: 'calls itself',
            parameters: { type: 'object', properties: {} },
          },
          implementation_type: 'workflow',
          effect: 'read_only',
          implementation_config: { workflow_id: 'recursive' },
        }),
      );
      await request(sut.http)
        .post('/api/v1/workflows')
        .set(bearer(userKey))
        .send({
          name: 'recursive',
          nodes: [
            { id: 'start', type: 'start', data: {} },
            { id: 'again', type: 'tool', data: { tool: 'recurse_tool', arguments: {} } },
            { id: 'end', type: 'end', data: { outputs: { inner: '{{again.output}}', status: '{{again.status}}' } } },
          ],
          edges: [
            { source: 'start', target: 'again' },
            { source: 'again', target: 'end' },
          ],
        })
        .expect(201);
      const recursive = await execute('recurse_tool', {}).expect(200);
      expect(JSON.stringify(recursive.body)).toMatch(/nesting limit/);
    });
  });
});
