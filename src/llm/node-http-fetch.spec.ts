import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { nodeHttpFetch } from './node-http-fetch';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

describe('nodeHttpFetch', () => {
  let server: http.Server;
  let origin: string;
  const seen: Seen[] = [];

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        seen.push({
          method: request.method ?? '',
          url: request.url ?? '',
          headers: request.headers,
          body: Buffer.concat(chunks).toString(),
        });
        if (request.url === '/gzip') {
          response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
          response.end(gzipSync('{"zipped":true}'));
        } else if (request.url === '/moved') {
          response.writeHead(307, { location: '/target' });
          response.end();
        } else if (request.url === '/empty') {
          response.writeHead(204);
          response.end();
        } else if (request.url === '/silent') {
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          response.write('data: first\n\n');
        } else {
          response.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'abc' });
          response.end(JSON.stringify({ path: request.url }));
        }
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  beforeEach(() => (seen.length = 0));

  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });

  it('should send the method, headers and body and answer with the status, headers and body', async () => {
    const response = await nodeHttpFetch(`${origin}/v1/chat`, {
      method: 'post',
      headers: { 'content-type': 'application/json', authorization: 'Bearer key' },
      body: '{"model":"m"}',
    });

    expect(response.status).toBe(201);
    expect(response.headers.get('x-request-id')).toBe('abc');
    expect(await response.json()).toEqual({ path: '/v1/chat' });
    expect(seen).toEqual([
      expect.objectContaining({
        method: 'POST',
        url: '/v1/chat',
        body: '{"model":"m"}',
        headers: expect.objectContaining({ authorization: 'Bearer key', 'content-length': '13' }) as unknown,
      }),
    ]);
  });

  it('should decode a gzip body as fetch does', async () => {
    const response = await nodeHttpFetch(`${origin}/gzip`);

    expect(await response.json()).toEqual({ zipped: true });
  });

  it('should answer a status without a body with a null body', async () => {
    const response = await nodeHttpFetch(`${origin}/empty`, { method: 'POST', body: '{}' });

    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it('should follow a redirect as fetch does, sending the request again to its target', async () => {
    const response = await nodeHttpFetch(`${origin}/moved`, { method: 'POST', body: '{"a":1}' });

    expect(await response.json()).toEqual({ path: '/target' });
    expect(seen.map(({ method, url, body }) => [method, url, body])).toEqual([
      ['POST', '/moved', '{"a":1}'],
      ['POST', '/moved', '{"a":1}'],
      ['POST', '/target', '{"a":1}'],
    ]);
  });

  it('should fail like fetch when nothing listens, with the cause beneath', async () => {
    const closed = http.createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    closed.close();
    await once(closed, 'close');

    const failure = nodeHttpFetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' });

    await expect(failure).rejects.toThrow(
      expect.objectContaining({
        name: 'TypeError',
        message: 'fetch failed',
        cause: expect.objectContaining({ code: 'ECONNREFUSED' }) as unknown,
      }),
    );
  });

  it('should end a body being read when its signal aborts', async () => {
    const controller = new AbortController();
    const response = await nodeHttpFetch(`${origin}/silent`, { signal: controller.signal });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value).toString()).toBe('data: first\n\n');

    controller.abort();

    await expect(reader.read()).rejects.toThrow();
  });

  it('should refuse at once with an AbortError when the signal aborted already', async () => {
    const failure = nodeHttpFetch(`${origin}/v1/chat`, { signal: AbortSignal.abort() });

    await expect(failure).rejects.toThrow(expect.objectContaining({ name: 'AbortError' }));
  });
});
