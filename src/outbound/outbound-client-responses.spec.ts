import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { startHttpTestServer } from '../../test/support/http-test-server';
import { createClient, fakeDns, localServerPerTest } from '../../test/support/outbound-fixtures';
import { ToolExecutionError } from '../shared/tool-errors';
import { OutboundClient } from './outbound-client';
import type { OutboundClientOptions } from './outbound-request';

describe(OutboundClient.name, () => {
  const local = localServerPerTest();

  describe('compressed bodies', () => {
    const sut = (options: Partial<OutboundClientOptions> = {}): OutboundClient =>
      createClient({ allowPrivate: ['127.0.0.1/32'], ...options });
    const text = 'a body worth compressing, '.repeat(40);

    it.each([
      ['gzip', gzipSync],
      ['deflate', deflateSync],
      ['deflate', deflateRawSync],
      ['br', brotliCompressSync],
    ])('should ask for compression and hand back a %s body decoded', async (encoding, compress) => {
      local.handler = (_url, response) => {
        response.writeHead(200, { 'content-encoding': encoding, 'content-type': 'text/plain' });
        response.end(compress(Buffer.from(text)));
      };

      const result = await sut().request({ url: `${local.server.origin}/` });

      expect(local.server.requests[0].headers['accept-encoding']).toBe('gzip, deflate, br');
      expect(result.body.toString()).toBe(text);
      expect(result.bytes).toBe(text.length);
      expect(result.headers).not.toHaveProperty('content-encoding');
    });

    it('should cap the decoded size, not the compressed one', async () => {
      const bomb = gzipSync(Buffer.alloc(1024 * 1024, 'a'));
      local.handler = (_url, response) => {
        response.writeHead(200, { 'content-encoding': 'gzip' });
        response.end(bomb);
      };

      expect(bomb.length).toBeLessThan(4096);
      await expect(sut({ maxResponseBytes: 4096 }).request({ url: `${local.server.origin}/` })).rejects.toThrow(
        'response exceeded 4096 bytes',
      );
    });

    it('should fail readably on a body that does not decode', async () => {
      local.handler = (_url, response) => {
        response.writeHead(200, { 'content-encoding': 'gzip' });
        response.end('not gzip at all');
      };

      await expect(sut().request({ url: `${local.server.origin}/` })).rejects.toBeInstanceOf(ToolExecutionError);
    });

    it('should keep a caller Accept header and send a default one otherwise', async () => {
      await sut().request({ url: `${local.server.origin}/a`, headers: { Accept: 'text/csv' } });
      await sut().request({ url: `${local.server.origin}/b` });

      expect(local.server.requests.map((request) => request.headers.accept)).toEqual([
        'text/csv',
        'application/json, text/plain, */*',
      ]);
    });
  });

  describe('limits and failures', () => {
    const sut = (options: Partial<OutboundClientOptions> = {}): OutboundClient =>
      createClient({ allowPrivate: ['127.0.0.1/32'], ...options });

    it('should abort while streaming once the body passes the size limit', async () => {
      const total = 10 * 1024 * 1024;
      let written = 0;
      let closedEarly = false;
      const closed = new Promise<void>((resolve) => {
        local.handler = (_url, response) => {
          const chunk = Buffer.alloc(64 * 1024, 'a');
          response.on('close', () => {
            closedEarly = written < total;
            resolve();
          });
          const pump = (): void => {
            while (written < total && !response.destroyed) {
              written += chunk.length;
              if (!response.write(chunk)) return void response.once('drain', pump);
            }
            response.end();
          };
          pump();
        };
      });

      const attempt = sut().request({ url: `${local.server.origin}/big`, maxResponseBytes: 1024 });

      await expect(attempt).rejects.toThrow('response exceeded 1024 bytes');
      const error = (await attempt.catch((caught: unknown) => caught)) as ToolExecutionError;
      expect(error.details.metadata?.bytes_read).toBeLessThan(256 * 1024);
      await closed;
      expect(closedEarly).toBe(true);
    });

    it('should refuse a declared Content-Length over the limit before reading', async () => {
      local.handler = (_url, response) => {
        response.writeHead(200, { 'content-length': '5000' });
        response.end('x'.repeat(5000));
      };

      await expect(sut({ maxResponseBytes: 1024 }).request({ url: `${local.server.origin}/` })).rejects.toThrow(
        'response exceeded 1024 bytes',
      );
    });

    it('should never allow more than the client ceiling', async () => {
      local.handler = (_url, response) => response.end('x'.repeat(2000));

      await expect(
        sut({ maxResponseBytes: 1024 }).request({ url: `${local.server.origin}/`, maxResponseBytes: 10_000 }),
      ).rejects.toThrow('response exceeded 1024 bytes');
    });

    it('should report a timeout with its limit', async () => {
      local.handler = () => undefined;

      await expect(sut().request({ url: `${local.server.origin}/slow`, timeoutMs: 100 })).rejects.toThrow(
        `request to 127.0.0.1:${local.server.port} timed out after 100 ms`,
      );
    });

    it('should stop when the caller aborts', async () => {
      local.handler = () => undefined;
      const controller = new AbortController();
      const attempt = sut().request({ url: `${local.server.origin}/slow`, signal: controller.signal });
      setImmediate(() => controller.abort());

      await expect(attempt).rejects.toThrow('was aborted');
    });

    it('should say the connection was refused', async () => {
      const port = local.server.port;
      await local.server.close();

      await expect(sut().request({ url: `http://127.0.0.1:${port}/` })).rejects.toThrow(
        `connection refused by 127.0.0.1:${port}`,
      );
      // The server is closed after each test: a new one that never answers takes its place.
      local.server = await startHttpTestServer(() => undefined);
    });

    it('should say a host could not be resolved', async () => {
      const client = createClient({}, fakeDns({}));

      const attempt = client.request({ url: 'http://nowhere.test/' });

      await expect(attempt).rejects.toBeInstanceOf(ToolExecutionError);
      await expect(attempt).rejects.toThrow('could not resolve host nowhere.test');
    });
  });
});
