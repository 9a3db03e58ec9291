import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import type { AddressPolicy } from './address-policy';

type ConnectCallback = (error: Error | null, stream: Duplex) => void;

/**
 * Connections stay open for the next request to the same host, like Node's global agent. The address check
 * runs when a socket connects, so a reused socket is one whose address passed; every new one is checked.
 * Idle sockets close after 4 s (or sooner when the server's Keep-Alive hint says so).
 */
const KEEP_ALIVE = { keepAlive: true, scheduling: 'lifo', timeout: 4_000 } as const;

/**
 * Refuses IP-literal targets at connect time too: Node skips `lookup` for them.
 * Returns true when the connection was refused (the agent's callback then carries the error).
 */
const refuseLiteral = (policy: AddressPolicy, host: string | null | undefined, callback?: ConnectCallback): boolean => {
  const bare = (host ?? '').replace(/^\[|\]$/g, '');
  const refusal = isIP(bare) === 0 ? null : policy.check(bare);
  if (!refusal) return false;
  if (!callback) throw refusal;
  process.nextTick(callback, refusal);
  return true;
};

class GuardedHttpAgent extends http.Agent {
  constructor(
    private readonly policy: AddressPolicy,
    lookup: LookupFunction,
  ) {
    super({ lookup, ...KEEP_ALIVE });
  }

  override createConnection(options: http.ClientRequestArgs, callback?: ConnectCallback): Duplex | null | undefined {
    if (refuseLiteral(this.policy, options.host ?? options.hostname, callback)) return undefined;
    return super.createConnection(options, callback);
  }
}

class GuardedHttpsAgent extends https.Agent {
  constructor(
    private readonly policy: AddressPolicy,
    lookup: LookupFunction,
  ) {
    super({ lookup, ...KEEP_ALIVE });
  }

  override createConnection(options: https.RequestOptions, callback?: ConnectCallback): Duplex | null | undefined {
    if (refuseLiteral(this.policy, options.host ?? options.hostname, callback)) return undefined;
    return super.createConnection(options, callback);
  }
}

export interface GuardedAgents {
  http: http.Agent;
  https: https.Agent;
}

/** http and https agents that resolve through the guarded lookup and refuse blocked literals. */
export const createGuardedAgents = (policy: AddressPolicy, lookup: LookupFunction): GuardedAgents => ({
  http: new GuardedHttpAgent(policy, lookup),
  https: new GuardedHttpsAgent(policy, lookup),
});
