import type { ServerResponse } from 'node:http';
import { OutboundClient } from '../../src/outbound/outbound-client';
import type { OutboundClientOptions } from '../../src/outbound/outbound-request';
import type { OutboundResolver, ResolvedAddress } from '../../src/outbound/outbound-resolver';
import { type HttpTestServer, startHttpTestServer } from './http-test-server';

const notFound = (hostname: string): Error =>
  Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });

/** A fake DNS: each name answers with its list, or with the next list of a sequence on every call. */
export const fakeDns = (zone: Record<string, string[] | string[][]>): OutboundResolver => {
  const calls = new Map<string, number>();
  return (hostname) => {
    const entry = zone[hostname];
    if (!entry) return Promise.reject(notFound(hostname));
    const call = calls.get(hostname) ?? 0;
    calls.set(hostname, call + 1);
    const answer = Array.isArray(entry[0])
      ? (entry as string[][])[Math.min(call, entry.length - 1)]
      : (entry as string[]);
    return Promise.resolve(
      answer.map((address): ResolvedAddress => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
};

/** An OutboundClient with test defaults (no private range allowed, 5 s, 1 MiB, 5 redirects) under `options`. */
export const createClient = (
  options: Partial<OutboundClientOptions> = {},
  resolver?: OutboundResolver,
): OutboundClient =>
  new OutboundClient(
    {
      allowPrivate: [],
      defaultTimeoutMs: 5000,
      maxResponseBytes: 1024 * 1024,
      maxRedirects: 5,
      userAgent: 'ToolFlow-test',
      ...options,
    },
    resolver,
  );

export const redirectTo = (response: ServerResponse, location: string, status = 302): void => {
  response.writeHead(status, { location });
  response.end();
};

/**
 * A loopback server started before each test of the calling `describe` and closed after it; it answers with
 * `handler` (by default "ok"), which a test may set.
 */
export function localServerPerTest(): {
  server: HttpTestServer;
  handler: (url: string, response: ServerResponse) => void;
} {
  const local = {
    server: undefined as unknown as HttpTestServer,
    handler: (_url: string, response: ServerResponse): void => void response.end('ok'),
  };
  beforeEach(async () => {
    local.handler = (_url, response) => response.end('ok');
    local.server = await startHttpTestServer((request, response) => local.handler(request.url, response));
  });
  afterEach(() => local.server.close());
  return local;
}
