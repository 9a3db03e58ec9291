import { sendJson, startHttpTestServer, type HttpTestServer } from '../../../test/support/http-test-server';
import { builtinEnvironment, runBuiltin } from '../../../test/factories/builtin.factory';
import type { BuiltinEnvironment } from './builtin-tool';
import { httpRequest, type HttpRequestParams } from './http-request';

const run = (params: HttpRequestParams, env: BuiltinEnvironment) => runBuiltin(httpRequest, params, env);
const environment = (allowPrivate: string[]) => builtinEnvironment(allowPrivate);

describe('httpRequest', () => {
  let server: HttpTestServer;
  const env = environment(['127.0.0.1/32']);

  beforeEach(async () => {
    server = await startHttpTestServer((request, response) => {
      if (request.url.startsWith('/missing')) return sendJson(response, 404, { error: 'no such item' });
      if (request.url === '/text') {
        response.setHeader('content-type', 'text/plain');
        response.end('z'.repeat(20_000));
        return;
      }
      response.setHeader('etag', '"v1"');
      response.setHeader('x-internal', 'hidden');
      sendJson(response, 201, { received: request.body ? (JSON.parse(request.body) as unknown) : null });
    });
  });

  afterEach(() => server.close());

  it('should send method, headers, query and a JSON body and return status, chosen headers and parsed JSON', async () => {
    const result = await run(
      { method: 'POST', url: `${server.origin}/items`, headers: { 'X-Trace': '1' }, query: { n: 2 }, body: { a: 1 } },
      env,
    );

    expect(server.requests[0]).toMatchObject({ method: 'POST', url: '/items?n=2', body: '{"a":1}' });
    expect(server.requests[0].headers['x-trace']).toBe('1');
    expect(JSON.parse(result.response)).toEqual({
      status: 201,
      status_text: 'Created',
      final_url: `${server.origin}/items?n=2`,
      headers: { 'content-type': 'application/json', etag: '"v1"' },
      body: { received: { a: 1 } },
    });
    expect(result.metadata).toMatchObject({ status_code: 201 });
  });

  it('should return a non-2xx status to the model instead of failing', async () => {
    const result = await run({ url: `${server.origin}/missing` }, env);

    expect(JSON.parse(result.response)).toMatchObject({ status: 404, body: { error: 'no such item' } });
  });

  it('should return the whole of a long text body, for the node to cut and read_tool_result to page', async () => {
    const result = await run({ url: `${server.origin}/text` }, env);

    expect((JSON.parse(result.response) as { body: string }).body).toBe('z'.repeat(20_000));
    expect(result.data).toMatchObject({ body: 'z'.repeat(20_000) });
  });

  it('should refuse private addresses without an allowance', async () => {
    await expect(run({ url: `${server.origin}/` }, environment([]))).rejects.toMatchObject({ rule: 'loopback' });
    expect(server.requests).toHaveLength(0);
  });

  it('should declare a mutating effect and a closed parameter schema', () => {
    expect(httpRequest.effect).toBe('mutating');
    expect(httpRequest.parameters).toMatchObject({ additionalProperties: false, required: ['url'] });
  });
});
