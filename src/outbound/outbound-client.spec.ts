import type { ServerResponse } from 'node:http';
import { startHttpTestServer, type HttpTestServer } from '../../test/support/http-test-server';
import { createClient, fakeDns, redirectTo } from '../../test/support/outbound-fixtures';
import { OutboundBlockedError } from './outbound-blocked-error';
import { OutboundClient } from './outbound-client';

describe(OutboundClient.name, () => {
  describe('hostile URLs', () => {
    const sut = createClient(
      { defaultTimeoutMs: 1000 },
      fakeDns({
        '127.0.0.1.nip.io': ['127.0.0.1'],
        'loopback6.test': ['::1'],
        'mixed.test': ['93.184.216.34', '10.0.0.1'],
        'metadata.attacker.test': ['169.254.169.254'],
        'aws-v6.test': ['fd00:ec2::254'],
        'mapped.test': ['::ffff:192.168.0.1'],
        localhost: ['127.0.0.1'],
      }),
    );

    it.each([
      ['http://localhost/', 'localhost'],
      ['http://LOCALHOST./admin', 'localhost'],
      ['http://api.localhost/', 'localhost'],
      ['http://127.0.0.1/', 'loopback'],
      ['http://127.0.0.1.:80/', 'loopback'],
      ['http://127.1/', 'loopback'],
      ['http://2130706433/', 'loopback'],
      ['http://0x7f000001/', 'loopback'],
      ['http://017700000001/', 'loopback'],
      ['http://0177.0.0.1/', 'loopback'],
      ['http://0x7f.1/', 'loopback'],
      ['http://127.0.0.1.nip.io/', 'loopback'],
      ['http://loopback6.test/', 'loopback'],
      ['http://0/', 'unspecified'],
      ['http://0.0.0.0:8080/', 'unspecified'],
      ['http://[::]/', 'unspecified'],
      ['http://[::1]/', 'loopback'],
      ['http://[::ffff:127.0.0.1]/', 'loopback'],
      ['http://[::ffff:7f00:1]/', 'loopback'],
      ['http://[::127.0.0.1]/', 'loopback'],
      ['http://[0:0:0:0:0:ffff:a00:1]/', 'private'],
      ['http://[::ffff:0:a00:1]/', 'private'],
      ['http://10.1.2.3/', 'private'],
      ['http://0x0a.0x01.0x02.0x03/', 'private'],
      ['http://172.16.0.1/', 'private'],
      ['http://172.31.255.255/', 'private'],
      ['http://192.168.1.1/', 'private'],
      ['http://mixed.test/', 'private'],
      ['http://mapped.test/', 'private'],
      ['http://169.254.169.254/latest/meta-data', 'cloud-metadata'],
      ['http://[::ffff:a9fe:a9fe]/', 'cloud-metadata'],
      ['http://[64:ff9b::a9fe:a9fe]/', 'cloud-metadata'],
      ['http://[fd00:ec2::254]/', 'cloud-metadata'],
      ['http://metadata.google.internal/computeMetadata/v1/', 'cloud-metadata'],
      ['http://metadata/', 'cloud-metadata'],
      ['http://metadata.attacker.test/', 'cloud-metadata'],
      ['http://aws-v6.test/', 'cloud-metadata'],
      ['http://169.254.1.1/', 'link-local'],
      ['http://[fe80::1]/', 'link-local'],
      ['http://[fe80::1%25eth0]/', 'invalid-url'],
      ['http://100.64.0.1/', 'carrier-grade-nat'],
      ['http://[fd00::1]/', 'unique-local'],
      ['http://[64:ff9b:1::1]/', 'private'],
      ['http://224.0.0.1/', 'multicast'],
      ['http://[ff02::1]/', 'multicast'],
      ['http://255.255.255.255/', 'broadcast'],
      ['http://240.0.0.1/', 'reserved'],
      ['http://192.0.0.170/', 'reserved'],
      ['http://[100::1]/', 'reserved'],
      ['http://198.18.0.1/', 'benchmarking'],
      ['http://192.0.2.1/', 'documentation'],
      ['http://[2001:db8::1]/', 'documentation'],
      ['http://[2002:7f00:1::]/', 'loopback'],
      ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'loopback'],
      ['file:///etc/passwd', 'scheme'],
      ['gopher://127.0.0.1:70/_stats', 'scheme'],
      ['ftp://example.com/', 'scheme'],
      ['javascript:alert(1)', 'scheme'],
      ['data:text/plain,hello', 'scheme'],
      ['http://user:pass@example.com/', 'userinfo'],
      ['https://token@example.com/', 'userinfo'],
      ['http://not a url/', 'invalid-url'],
      ['/relative/path', 'invalid-url'],
    ])('should refuse %s (%s)', async (url, rule) => {
      const attempt = sut.request({ url });

      await expect(attempt).rejects.toBeInstanceOf(OutboundBlockedError);
      await expect(attempt).rejects.toMatchObject({ rule });
    });

    it('should name the rule and the range in the message', async () => {
      await expect(sut.request({ url: 'http://10.1.2.3/' })).rejects.toThrow(
        'blocked: 10.1.2.3 is in private range 10.0.0.0/8; allow it with OUTBOUND_ALLOW_PRIVATE',
      );
    });
  });

  describe('against a local server', () => {
    let server: HttpTestServer;
    let handler: (url: string, response: ServerResponse) => void;

    beforeEach(async () => {
      handler = (_url, response) => response.end('ok');
      server = await startHttpTestServer((request, response) => handler(request.url, response));
    });

    afterEach(() => server.close());

    it('should refuse 127.0.0.1 without an allowance and never reach the server', async () => {
      await expect(createClient().request({ url: `${server.origin}/` })).rejects.toMatchObject({ rule: 'loopback' });
      expect(server.requests).toHaveLength(0);
    });

    it('should reach 127.0.0.1 when the allowlist names it', async () => {
      handler = (_url, response) => {
        response.writeHead(201, { 'X-Custom': 'yes', 'content-type': 'text/plain' });
        response.end('created');
      };
      const sut = createClient({ allowPrivate: ['127.0.0.1/32'] });

      const result = await sut.request({
        url: `${server.origin}/things`,
        method: 'post',
        body: { a: 1 },
        query: { q: 'a b' },
      });

      expect(result).toMatchObject({
        status: 201,
        headers: expect.objectContaining({ 'x-custom': 'yes' }) as unknown,
        bytes: 7,
        finalUrl: `${server.origin}/things?q=a+b`,
        redirects: [],
        truncated: false,
      });
      expect(result.body.toString()).toBe('created');
      expect(server.requests[0]).toMatchObject({ method: 'POST', body: '{"a":1}' });
      expect(server.requests[0].headers).toMatchObject({
        'content-type': 'application/json',
        'user-agent': 'ToolFlow-test',
      });
    });

    it('should connect to the host itself, never through a proxy the environment names', async () => {
      const proxy = await startHttpTestServer((_request, response) => void response.end('from the proxy'));
      const saved = { HTTP_PROXY: process.env.HTTP_PROXY, http_proxy: process.env.http_proxy };
      process.env.HTTP_PROXY = proxy.origin;
      process.env.http_proxy = proxy.origin;
      try {
        const result = await createClient({ allowPrivate: ['127.0.0.1/32'] }).request({ url: `${server.origin}/` });

        expect(result.body.toString()).toBe('ok');
        expect(proxy.requests).toHaveLength(0);
      } finally {
        for (const [name, value] of Object.entries(saved)) {
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
        }
        await proxy.close();
      }
    });

    it('should ignore a caller-supplied Host header', async () => {
      const sut = createClient({ allowPrivate: ['127.0.0.1/32'] });

      await sut.request({ url: `${server.origin}/`, headers: { Host: 'internal.example' } });

      expect(server.requests[0].headers.host).toBe(`127.0.0.1:${server.port}`);
    });

    it('should check the address again on every new connection (DNS rebinding)', async () => {
      const sut = createClient(
        { allowPrivate: ['127.0.0.1/32'] },
        fakeDns({ 'rebind.test': [['127.0.0.1'], ['169.254.169.254']] }),
      );
      handler = (_url, response) => {
        response.writeHead(200, { connection: 'close' });
        response.end('ok');
      };

      await expect(sut.request({ url: `http://rebind.test:${server.port}/` })).resolves.toMatchObject({ status: 200 });
      await expect(sut.request({ url: `http://rebind.test:${server.port}/` })).rejects.toMatchObject({
        rule: 'cloud-metadata',
      });
      expect(server.requests).toHaveLength(1);
    });

    describe('kept-alive connections', () => {
      /** The client port of the connection each request came on. */
      let connections: number[];

      beforeEach(() => {
        connections = [];
        handler = (_url, response) => {
          connections.push(response.socket?.remotePort ?? 0);
          response.end('ok');
        };
      });

      it('should send the next request to a host over the connection whose address passed, without resolving again', async () => {
        let lookups = 0;
        const dns = fakeDns({ 'rebind.test': [['127.0.0.1'], ['169.254.169.254']] });
        const sut = createClient({ allowPrivate: ['127.0.0.1/32'] }, (hostname) => {
          lookups += 1;
          return dns(hostname);
        });

        await sut.request({ url: `http://rebind.test:${server.port}/a` });
        const second = await sut.request({ url: `http://rebind.test:${server.port}/b` });

        expect(second.body.toString()).toBe('ok');
        expect(lookups).toBe(1);
        expect(new Set(connections).size).toBe(1);
      });

      it('should check a new connection to another name on the same port while one is kept open', async () => {
        const sut = createClient(
          { allowPrivate: ['127.0.0.1/32'] },
          fakeDns({ 'public.test': ['127.0.0.1'], 'rebound.test': ['169.254.169.254'] }),
        );
        await sut.request({ url: `http://public.test:${server.port}/` });

        await expect(sut.request({ url: `http://rebound.test:${server.port}/` })).rejects.toMatchObject({
          rule: 'cloud-metadata',
        });
        handler = (_url, response) => redirectTo(response, `http://rebound.test:${server.port}/secret`);
        await expect(sut.request({ url: `http://public.test:${server.port}/start` })).rejects.toMatchObject({
          rule: 'cloud-metadata',
        });
        expect(server.requests.map((request) => request.url)).toEqual(['/', '/start']);
      });

      it('should send an idempotent request again on a new connection when the kept one was reset as it was reused', async () => {
        const sut = createClient({ allowPrivate: ['127.0.0.1/32'] });
        await sut.request({ url: `${server.origin}/first` });
        const reset = connections[0];
        handler = (_url, response) => {
          connections.push(response.socket?.remotePort ?? 0);
          if (response.socket?.remotePort === reset) response.socket.resetAndDestroy();
          else response.end('again');
        };

        const result = await sut.request({ url: `${server.origin}/second` });

        expect(result.body.toString()).toBe('again');
        expect(connections).toHaveLength(3);
        expect(connections[1]).toBe(reset);
        expect(connections[2]).not.toBe(reset);
      });

      it('should not send a POST again when its kept connection was reset', async () => {
        const sut = createClient({ allowPrivate: ['127.0.0.1/32'] });
        await sut.request({ url: `${server.origin}/first` });
        handler = (_url, response) => {
          connections.push(response.socket?.remotePort ?? 0);
          response.socket?.resetAndDestroy();
        };

        await expect(sut.request({ url: `${server.origin}/order`, method: 'POST', body: { n: 1 } })).rejects.toThrow();
        expect(server.requests.filter((request) => request.url === '/order')).toHaveLength(1);
      });
    });

    it('should refuse a name whose addresses include a blocked one even if another is allowed', async () => {
      const sut = createClient(
        { allowPrivate: ['127.0.0.1/32'] },
        fakeDns({ 'mixed.test': ['127.0.0.1', '10.0.0.1'] }),
      );

      await expect(sut.request({ url: `http://mixed.test:${server.port}/` })).rejects.toMatchObject({
        rule: 'private',
      });
      expect(server.requests).toHaveLength(0);
    });

    it('should fail readably when the connection drops in the middle of the body', async () => {
      handler = (_url, response) => {
        response.writeHead(200, { 'content-length': '1000' });
        response.write('only part of it');
        setImmediate(() => response.socket?.destroy());
      };

      await expect(
        createClient({ allowPrivate: ['127.0.0.1/32'] }).request({ url: `${server.origin}/` }),
      ).rejects.toThrow(`connection to 127.0.0.1:${server.port} was closed unexpectedly`);
    });
  });

  describe('fetch', () => {
    let server: HttpTestServer;

    beforeAll(async () => {
      server = await startHttpTestServer((recorded, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(`data: ${recorded.method} ${String(recorded.headers['x-probe'])} ${recorded.body}\n\n`);
        response.end();
      });
    });

    afterAll(() => server.close());

    it('should refuse a host the policy blocks, also when the name resolves to it', async () => {
      const sut = createClient({}, fakeDns({ 'inside.test': ['10.0.0.7'] }));

      await expect(sut.fetch(`${server.origin}/mcp`)).rejects.toBeInstanceOf(OutboundBlockedError);
      await expect(sut.fetch('http://inside.test/mcp')).rejects.toBeInstanceOf(OutboundBlockedError);
    });

    it('should stream the response of an allowed host with the request headers and body', async () => {
      const sut = createClient({ allowPrivate: ['127.0.0.1/32'] });

      const response = await sut.fetch(`${server.origin}/mcp`, {
        method: 'POST',
        headers: new Headers({ 'X-Probe': 'yes' }),
        body: '{"jsonrpc":"2.0"}',
      });

      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      expect(await response.text()).toBe('data: POST yes {"jsonrpc":"2.0"}\n\n');
    });

    it('should cap a plain body at maxResponseBytes, and an event stream per event', async () => {
      const big = await startHttpTestServer((recorded, response) => {
        const events = recorded.url.endsWith('/events');
        response.writeHead(200, { 'content-type': events ? 'text/event-stream' : 'application/json' });
        if (recorded.url.endsWith('/events/huge')) response.end(`data: ${'x'.repeat(300)}\n\n`);
        else if (events) response.end(`data: ${'y'.repeat(60)}\r\n\r\n`.repeat(20));
        else response.end(JSON.stringify({ filler: 'z'.repeat(300) }));
      });
      const sut = createClient({ allowPrivate: ['127.0.0.1/32'], maxResponseBytes: 100 });
      try {
        const manyEvents = await sut.fetch(`${big.origin}/events`);
        const json = await sut.fetch(`${big.origin}/json`);
        const hugeEvent = await sut.fetch(`${big.origin}/events/huge`);

        expect(await manyEvents.text()).toHaveLength(20 * 70);
        await expect(json.text()).rejects.toThrow('response exceeded 100 bytes');
        await expect(hugeEvent.text()).rejects.toThrow('response exceeded 100 bytes');
      } finally {
        await big.close();
      }
    });
  });
});
