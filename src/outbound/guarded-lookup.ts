import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { AddressPolicy } from './address-policy';
import type { OutboundResolver } from './outbound-resolver';

const notFound = (hostname: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });

/**
 * The `lookup` the guarded agents connect with: resolution happens here, at connect time,
 * and the connection fails unless EVERY resolved address passes the policy (DNS rebinding).
 */
export const createGuardedLookup =
  (resolver: OutboundResolver, policy: AddressPolicy): LookupFunction =>
  (hostname: string, options: LookupOptions, callback) => {
    resolver(hostname).then(
      (resolved) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : null;
        const addresses: LookupAddress[] = resolved.filter((entry) => wanted === null || entry.family === wanted);
        if (addresses.length === 0) return callback(notFound(hostname), '', 0);
        for (const { address } of addresses) {
          const refusal = policy.check(address);
          if (refusal) return callback(refusal, '', 0);
        }
        if (options.all) return callback(null, addresses);
        callback(null, addresses[0].address, addresses[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
