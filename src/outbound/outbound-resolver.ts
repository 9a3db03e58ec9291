import { promises as dns } from 'node:dns';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has; injectable so tests can play DNS. */
export type OutboundResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: OutboundResolver = async (hostname) => {
  const addresses = await dns.lookup(hostname, { all: true, verbatim: true });
  return addresses.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};
