import type { ServerResponse } from 'node:http';
import {
  sendJson,
  startHttpTestServer,
  type HttpTestServer,
  type RecordedRequest,
} from '../../../test/support/http-test-server';
import type { StoredTool } from '../executor';
import { OutboundClient } from '../../outbound/outbound-client';
import type { ToolDefinition, ToolExecuteResult } from '../../shared/tool-definition';
import type { ToolEffect } from '../../shared/tool-types';
import { createHttpExecutor, type HttpExecutorDeps } from './http-executor';
import type { HttpToolConfig } from './http-tool-config';

const outbound = new OutboundClient({
  allowPrivate: ['127.0.0.1/32'],
  defaultTimeoutMs: 5000,
  maxResponseBytes: 1024 * 1024,
  maxRedirects: 5,
  userAgent: 'ToolFlow-test',
});

const storedTool = (
  implementationConfig: HttpToolConfig,
  effect: ToolEffect = 'read_only',
): StoredTool & { implementationConfig: HttpToolConfig } => ({
  id: 'tool-1',
  name: 'call_api',
  requiresApproval: false,
  version: 1,
  userId: null,
  effect,
  implementationType: 'http',
  implementationConfig,
  functionSchema: {
    type: 'function',
    function: {
      name: 'call_api',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'integer' }, flag: { type: 'boolean' }, tags: {} },
      },
    },
  },
});

const execute = (definition: ToolDefinition, params: Record<string, unknown> = {}): Promise<ToolExecuteResult> =>
  definition.execute({
    call: { id: 'call-1', name: 'call_api', arguments: JSON.stringify(params) },
    params,
    messages: [],
    run: { runId: null, userId: 'u1', isAdmin: false, signal: new AbortController().signal, depth: 0 },
    signal: new AbortController().signal,
  });

describe(createHttpExecutor.name, () => {
  let server: HttpTestServer;
  let handler: (request: RecordedRequest, response: ServerResponse) => void;
  const sleeps: number[] = [];
  const deps: HttpExecutorDeps = {
    outbound,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    random: () => 0.5,
  };
  const sut = createHttpExecutor(deps);
  const define = (config: Partial<HttpToolConfig>, effect?: ToolEffect): Promise<ToolDefinition> =>
    Promise.resolve(sut.toDefinition(storedTool({ url: `${server.origin}/`, ...config }, effect)));

  beforeEach(async () => {
    sleeps.length = 0;
    handler = (_request, response) => sendJson(response, 200, { ok: true });
    server = await startHttpTestServer((request, response) => handler(request, response));
  });

  afterEach(() => server.close());

  it('should fill URL and query placeholders with encoded values', async () => {
    const definition = await define({
      url: `${server.origin}/weather/{city}`,
      query: { days: '{days}', units: 'metric', missing: '{flag}' },
    });

    const result = await execute(definition, { city: 'São Paulo/../x?y#z', days: 3 });

    expect(server.requests[0].url).toBe('/weather/S%C3%A3o%20Paulo%2F..%2Fx%3Fy%23z?days=3&units=metric');
    expect(result).toMatchObject({
      data: { ok: true },
      metadata: { status_code: 200, attempts: 1, final_url: expect.stringContaining('/weather/') as unknown },
    });
  });

  it('should send array and object query arguments in their configured OpenAPI style', async () => {
    const definition = await define({
      url: `${server.origin}/pets?fixed=1`,
      query: { tags: '{tags}', city: '{city}', filter: '{flag}', days: '{days}' },
      query_serialization: {
        tags: { style: 'form' },
        city: { style: 'pipeDelimited' },
        filter: { style: 'deepObject', explode: true },
      },
    });

    await execute(definition, { tags: ['a b', 'c'], city: ['x', 'y'], flag: { size: 2 }, days: [1] });

    expect(server.requests[0].url).toBe('/pets?fixed=1&tags=a+b&tags=c&city=x%7Cy&filter%5Bsize%5D=2&days=%5B1%5D');
  });

  it('should refuse a value that makes a ".." path segment', async () => {
    const definition = await define({ url: `${server.origin}/files/{city}/meta` });

    await expect(execute(definition, { city: '..' })).rejects.toThrow('"." or ".." path segments');
    expect(server.requests).toHaveLength(0);
  });

  it('should render a POST body template keeping the type of exact placeholders', async () => {
    const definition = await define({
      method: 'POST',
      body: { city: '{city}', days: '{days}', flag: '{flag}', tags: '{tags}', note: 'for {city}', absent: '{missing}' },
    });

    await execute(definition, { city: 'Oslo', days: 2, flag: false, tags: ['a', 'b'] });

    expect(JSON.parse(server.requests[0].body)).toEqual({
      city: 'Oslo',
      days: 2,
      flag: false,
      tags: ['a', 'b'],
      note: 'for Oslo',
    });
    expect(server.requests[0].headers['content-type']).toBe('application/json');
  });

  it.each([
    [
      { type: 'bearer', token: 't0k' } as const,
      (request: RecordedRequest) => request.headers.authorization,
      'Bearer t0k',
    ],
    [
      { type: 'basic', username: 'ann', password: 'pw' } as const,
      (request: RecordedRequest) => request.headers.authorization,
      `Basic ${Buffer.from('ann:pw').toString('base64')}`,
    ],
    [{ type: 'api_key_header', key: 'k1' } as const, (request: RecordedRequest) => request.headers['x-api-key'], 'k1'],
    [
      { type: 'api_key_header', key: 'k2', header_name: 'X-Token' } as const,
      (request: RecordedRequest) => request.headers['x-token'],
      'k2',
    ],
    [{ type: 'api_key_query', key: 'k3' } as const, (request: RecordedRequest) => request.url, '/?api_key=k3'],
    [
      { type: 'api_key_query', key: 'k4', query_name: 'appid' } as const,
      (request: RecordedRequest) => request.url,
      '/?appid=k4',
    ],
  ])('should send %j auth to the server', async (auth, read, expected) => {
    const definition = await define({ auth, headers: { Authorization: '{city}', 'X-Api-Key': '{city}' } });

    await execute(definition, { city: 'spoofed' });

    expect(read(server.requests[0])).toBe(expected);
  });

  it('should refuse arguments that move an authenticated request to another host', async () => {
    const definition = await define({ url: 'http://127.0.0.1:{days}/', auth: { type: 'bearer', token: 'secret' } });

    await expect(execute(definition, { days: server.port })).rejects.toThrow('may not change the scheme, host or port');
  });

  it('should explain a non-2xx answer with its status and an excerpt', async () => {
    handler = (_request, response) => sendJson(response, 404, { error: 'city not found', detail: 'x'.repeat(2000) });

    const attempt = execute(await define({}));

    await expect(attempt).rejects.toThrow(/^HTTP 404 Not Found: \{"error":"city not found"/);
    await expect(attempt).rejects.toMatchObject({ details: { statusCode: 404 } });
    expect(((await attempt.catch((error: Error) => error)) as Error).message.length).toBeLessThan(540);
  });

  it('should retry a read-only tool on 503 and then succeed', async () => {
    handler = (_request, response) =>
      server.requests.length < 3 ? sendJson(response, 503, { busy: true }) : sendJson(response, 200, { ok: 1 });

    const result = await execute(await define({ retry: { count: 3, backoff_ms: 100 } }));

    expect(result.metadata).toMatchObject({ attempts: 3, status_code: 200 });
    expect(sleeps).toEqual([50, 100]);
  });

  it('should not retry a mutating tool', async () => {
    handler = (_request, response) => sendJson(response, 503, { busy: true });

    const attempt = execute(await define({ method: 'POST', retry: { count: 3, backoff_ms: 10 } }, 'mutating'));

    await expect(attempt).rejects.toMatchObject({ details: { statusCode: 503, metadata: { attempts: 1 } } });
    expect(server.requests).toHaveLength(1);
  });

  it('should wait as long as Retry-After says', async () => {
    handler = (_request, response) => {
      if (server.requests.length > 1) return sendJson(response, 200, {});
      response.writeHead(429, { 'retry-after': '2' });
      response.end();
    };

    const result = await execute(await define({ retry: { count: 1, backoff_ms: 10 } }));

    expect(result.metadata).toMatchObject({ attempts: 2 });
    expect(sleeps).toEqual([2000]);
  });

  it('should retry a connection failure for an idempotent tool and report the attempts', async () => {
    const port = server.port;
    await server.close();
    const definition = sut.toDefinition(
      storedTool({ url: `http://127.0.0.1:${port}/`, retry: { count: 2, backoff_ms: 10 } }, 'idempotent'),
    ) as ToolDefinition;

    await expect(execute(definition)).rejects.toMatchObject({
      message: `connection refused by 127.0.0.1:${port}`,
      details: { metadata: { attempts: 3 } },
    });
    server = await startHttpTestServer(() => undefined);
  });

  it('should keep only the configured response fields', async () => {
    handler = (_request, response) =>
      sendJson(response, 200, { current: { temp_c: 21, wind: 3 }, items: [{ name: 'a', id: 1 }], noise: 'x' });

    const result = await execute(await define({ response_fields: ['current.temp_c', 'items[0].name', 'nope.x'] }));

    expect(result.data).toEqual({ 'current.temp_c': 21, 'items[0].name': 'a', 'nope.x': null });
    expect(result.response).not.toContain('noise');
  });

  it('should turn HTML into Markdown in markdown mode', async () => {
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        '<html><head><style>p{}</style></head><body><h1>Title</h1><script>evil()</script><p>Hi <b>there</b></p></body></html>',
      );
    };

    const result = await execute(await define({ parse_mode: 'markdown' }));

    expect(result.response).toBe('# Title\n\nHi **there**');
  });

  it('should let the block list win over the allow list and check domains on every hop', async () => {
    const blocked = await define({ allowed_domains: ['127.0.0.1'], blocked_domains: ['127.0.0.1'] });
    const notAllowed = await define({ allowed_domains: ['*.example.com'] });
    handler = (_request, response) => {
      response.writeHead(302, { location: 'http://evil.test/' });
      response.end();
    };
    const redirected = await define({ allowed_domains: ['127.0.0.1'] });

    await expect(execute(blocked)).rejects.toThrow('blocked: 127.0.0.1 matches blocked domain 127.0.0.1');
    await expect(execute(notAllowed)).rejects.toThrow('is not in the allowed domains (*.example.com)');
    await expect(execute(redirected)).rejects.toMatchObject({ rule: 'domain-policy' });
    expect(server.requests).toHaveLength(1);
  });

  it('should return the whole response for the model, in every parse mode, for read_tool_result to page', async () => {
    // 385 KB: the size that was cut to 16,000 characters before max_tool_result_tokens had a say.
    const text = Array.from({ length: 35_000 }, (_, index) => `line ${index}`).join('\n');
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end(text);
    };
    const rows = Array.from({ length: 20_000 }, (_, index) => ({ id: index, name: `row ${index}` }));

    const raw = await execute(await define({ parse_mode: 'raw' }));
    handler = (_request, response) => sendJson(response, 200, { rows });
    const json = await execute(await define({ parse_mode: 'json' }));

    expect(text.length).toBeGreaterThan(300_000);
    expect(raw.response).toBe(text);
    expect(JSON.parse(json.response)).toEqual({ rows });
  });

  it('should refuse a response larger than max_response_bytes', async () => {
    handler = (_request, response) => response.end('y'.repeat(5000));

    await expect(execute(await define({ max_response_bytes: 1000 }))).rejects.toThrow('response exceeded 1000 bytes');
  });

  it('should still refuse private addresses the outbound client does not allow', async () => {
    const definition = await define({ url: 'http://10.0.0.1/' });

    await expect(execute(definition)).rejects.toMatchObject({ rule: 'private' });
  });

  describe('validateConfig', () => {
    const validate = (config: HttpToolConfig) => sut.validateConfig?.(config, storedTool(config));

    it('should report placeholders that name no parameter, with their path', () => {
      expect(
        validate({
          url: 'https://api.test/{city}/{nope}',
          headers: { 'X-A': '{ghost}' },
          query: { q: '{city}' },
          body: { a: { b: '{phantom}' } },
        }),
      ).toEqual([
        { path: '/url', message: 'placeholder {nope} does not name a parameter of call_api' },
        { path: '/headers/X-A', message: 'placeholder {ghost} does not name a parameter of call_api' },
        { path: '/body/a/b', message: 'placeholder {phantom} does not name a parameter of call_api' },
      ]);
    });

    it('should refuse a placeholder in the host of a tool with auth', () => {
      expect(validate({ url: 'https://{city}.api.test/', auth: { type: 'bearer', token: 't' } })).toEqual([
        { path: '/url', message: expect.stringContaining('its host is fixed by the config') as unknown },
      ]);
    });

    it('should accept a placeholder in the host of a tool without auth', () => {
      expect(validate({ url: 'https://{city}.api.test/' })).toEqual([]);
    });
  });

  it('should publish its secret paths', () => {
    expect(sut.secretPaths).toEqual(['/auth/token', '/auth/password', '/auth/key']);
  });
});
