import http from 'node:http';
import https from 'node:https';
import { AddressPolicy } from './address-policy';
import { createGuardedAgents } from './guarded-agents';
import { createGuardedLookup } from './guarded-lookup';
import type { OutboundResolver } from './outbound-resolver';

describe(createGuardedAgents.name, () => {
  const policy = new AddressPolicy();
  const resolver: OutboundResolver = () => Promise.resolve([{ address: '10.0.0.9', family: 4 }]);
  const sut = createGuardedAgents(policy, createGuardedLookup(resolver, policy));

  const failure = (get: typeof http.get, agent: http.Agent, host: string): Promise<Error> =>
    new Promise((resolve, reject) => {
      const request = get({ host, port: 9, path: '/', agent, timeout: 2000 }, () => reject(new Error('connected')));
      request.on('error', resolve);
      request.on('timeout', () => request.destroy(new Error('timed out')));
    });

  it.each([
    ['http', '127.0.0.1', 'loopback'],
    ['http', '::1', 'loopback'],
    ['https', '169.254.169.254', 'cloud-metadata'],
    ['https', 'fd00::1', 'unique-local'],
  ])('should refuse a %s connection to the literal %s even when called directly', async (scheme, host, rule) => {
    const error = await failure(scheme === 'http' ? http.get : https.get, sut[scheme as 'http' | 'https'], host);

    expect(error).toMatchObject({ rule });
  });

  it.each(['http', 'https'] as const)(
    'should refuse a %s connection to a name resolving to a private address',
    async (scheme) => {
      const error = await failure(scheme === 'http' ? http.get : https.get, sut[scheme], 'intranet.test');

      expect(error).toMatchObject({ rule: 'private' });
    },
  );
});
