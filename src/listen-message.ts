import type { AddressInfo } from 'node:net';

const WILDCARDS: Record<string, string> = { '0.0.0.0': 'all IPv4 interfaces', '::': 'all interfaces' };

/**
 * The start-up line: the address the server is really bound to (not Nest's getUrl, which says 127.0.0.1 for a
 * wildcard bind), and for a wildcard bind a loopback URL that reaches it from this machine.
 */
export function listenMessage(bound: AddressInfo): string {
  const host = bound.family === 'IPv6' && !bound.address.includes('.') ? `[${bound.address}]` : bound.address;
  const wildcard = WILDCARDS[bound.address];
  if (wildcard === undefined) {
    const url = `http://${host}:${bound.port}`;
    return `ToolFlow listening on ${url} (docs: ${url}/api/docs)`;
  }
  const local = `http://127.0.0.1:${bound.port}`;
  return (
    `ToolFlow listening on ${host}:${bound.port} (${wildcard}; from this machine ${local}, docs: ${local}/api/docs; ` +
    'from elsewhere use this host name or address)'
  );
}
