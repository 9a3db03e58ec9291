import { createClient, fakeDns, localServerPerTest, redirectTo } from '../../test/support/outbound-fixtures';
import { ToolExecutionError } from '../shared/tool-errors';
import { OutboundClient } from './outbound-client';
import type { OutboundResolver } from './outbound-resolver';

describe(OutboundClient.name, () => {
  const local = localServerPerTest();

  describe('redirects', () => {
    const publicDns = (): OutboundResolver =>
      fakeDns({ 'api.public.test': ['127.0.0.1'], 'internal.test': ['127.0.0.2'] });
    const sut = (): OutboundClient => createClient({ allowPrivate: ['127.0.0.1/32'] }, publicDns());

    it.each([
      ['http://169.254.169.254/latest/meta-data', 'cloud-metadata'],
      ['http://127.0.0.2/', 'loopback'],
      ['http://[::1]/', 'loopback'],
      ['http://internal.test/', 'loopback'],
      ['file:///etc/passwd', 'scheme'],
      ['http://admin:secret@api.public.test/', 'userinfo'],
    ])('should refuse a hop to %s (%s)', async (location, rule) => {
      local.handler = (_url, response) => redirectTo(response, location);

      await expect(sut().request({ url: `http://api.public.test:${local.server.port}/start` })).rejects.toMatchObject({
        rule,
      });
      expect(local.server.requests).toHaveLength(1);
    });

    it('should re-resolve the host on each hop so a rebinding hop is refused', async () => {
      const client = createClient(
        { allowPrivate: ['127.0.0.1/32'] },
        fakeDns({ 'rebind.test': [['127.0.0.1'], ['10.0.0.1']] }),
      );
      local.handler = (url, response) => (url === '/start' ? redirectTo(response, '/next') : response.end('secret'));

      await expect(client.request({ url: `http://rebind.test:${local.server.port}/start` })).rejects.toMatchObject({
        rule: 'private',
      });
      expect(local.server.requests.map((request) => request.url)).toEqual(['/start']);
    });

    it('should follow allowed hops, record them, and drop credentials when the origin changes', async () => {
      local.handler = (url, response) => {
        if (url === '/a') return redirectTo(response, '/b');
        if (url === '/b') return redirectTo(response, `http://api.public.test:${local.server.port}/c`);
        response.end('done');
      };

      const result = await sut().request({
        url: `${local.server.origin}/a`,
        headers: { Authorization: 'Bearer t', Cookie: 'c=1', 'X-Api-Key': 'k', 'X-Trace': 'kept' },
        sensitiveHeaders: ['X-Api-Key'],
      });

      expect(result.redirects).toEqual([`${local.server.origin}/b`, `http://api.public.test:${local.server.port}/c`]);
      expect(result.finalUrl).toBe(`http://api.public.test:${local.server.port}/c`);
      expect(local.server.requests[1].headers).toMatchObject({
        authorization: 'Bearer t',
        cookie: 'c=1',
        'x-api-key': 'k',
      });
      expect(local.server.requests[2].headers).not.toHaveProperty('authorization');
      expect(local.server.requests[2].headers).not.toHaveProperty('cookie');
      expect(local.server.requests[2].headers).not.toHaveProperty('x-api-key');
      expect(local.server.requests[2].headers).toMatchObject({ 'x-trace': 'kept' });
    });

    it('should drop every credential-named header on a cross-origin redirect, named or not', async () => {
      local.handler = (url, response) =>
        url === '/a' ? redirectTo(response, `http://api.public.test:${local.server.port}/c`) : response.end('done');

      await sut().request({
        url: `${local.server.origin}/a`,
        headers: { 'X-Api-Token': 't0k3n', 'X-Session-Id': 's', 'X-Custom': 'c', Accept: 'text/plain' },
        sensitiveHeaders: ['X-Custom'],
      });

      expect(local.server.requests[0].headers).toMatchObject({ 'x-api-token': 't0k3n', 'x-session-id': 's' });
      expect(local.server.requests[1].headers).not.toHaveProperty('x-api-token');
      expect(local.server.requests[1].headers).not.toHaveProperty('x-session-id');
      expect(local.server.requests[1].headers).not.toHaveProperty('x-custom');
      expect(local.server.requests[1].headers).toMatchObject({ accept: 'text/plain' });
    });

    it('should mask credential query values in the final URL and the hops it reports', async () => {
      local.handler = (url, response) =>
        url.startsWith('/a') ? redirectTo(response, '/b?token=from-server&page=2') : response.end('done');

      const result = await sut().request({
        url: `${local.server.origin}/a`,
        query: { api_key: 'k3y-secret', appid: 'app-secret', city: 'Oslo' },
        sensitiveQuery: ['appid'],
      });

      expect(local.server.requests[0].url).toBe('/a?api_key=k3y-secret&appid=app-secret&city=Oslo');
      expect(result.redirects).toEqual([`${local.server.origin}/b?token=********&page=2`]);
      expect(result.finalUrl).toBe(`${local.server.origin}/b?token=********&page=2`);
    });

    it('should turn a POST into a body-less GET on 303 and keep it on 307', async () => {
      local.handler = (url, response) => {
        if (url === '/see-other') return redirectTo(response, '/done', 303);
        if (url === '/temporary') return redirectTo(response, '/done', 307);
        response.end('done');
      };

      await sut().request({ url: `${local.server.origin}/see-other`, method: 'POST', body: 'payload' });
      await sut().request({ url: `${local.server.origin}/temporary`, method: 'POST', body: 'payload' });

      expect(local.server.requests.map(({ method, url, body }) => [method, url, body])).toEqual([
        ['POST', '/see-other', 'payload'],
        ['GET', '/done', ''],
        ['POST', '/temporary', 'payload'],
        ['POST', '/done', 'payload'],
      ]);
    });

    it('should fail after the maximum number of hops', async () => {
      local.handler = (url, response) => redirectTo(response, `${url}x`);

      await expect(sut().request({ url: `${local.server.origin}/loop`, maxRedirects: 3 })).rejects.toThrow(
        'too many redirects (more than 3)',
      );
      expect(local.server.requests).toHaveLength(4);
    });

    it('should hand back the redirect itself when redirects are disabled', async () => {
      local.handler = (_url, response) => redirectTo(response, '/elsewhere');

      const result = await sut().request({ url: `${local.server.origin}/`, maxRedirects: 0 });

      expect(result).toMatchObject({
        status: 302,
        headers: expect.objectContaining({ location: '/elsewhere' }) as unknown,
      });
      expect(local.server.requests).toHaveLength(1);
    });

    it('should apply the caller URL check to every hop', async () => {
      local.handler = (_url, response) => redirectTo(response, `http://api.public.test:${local.server.port}/`);
      const checkUrl = (url: URL): void => {
        if (url.hostname !== '127.0.0.1') throw new ToolExecutionError(`domain ${url.hostname} not allowed`);
      };

      await expect(sut().request({ url: `${local.server.origin}/`, checkUrl })).rejects.toThrow(
        'domain api.public.test not allowed',
      );
    });
  });
});
