import { DEFAULT_INHERITED_ENV_VARS, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { OutboundClient } from '../outbound/outbound-client';
import type { McpServerEntity } from './mcp-server.entity';

/** How to reach a server: the stored row's connection fields. */
export type McpEndpoint = Pick<
  McpServerEntity,
  'id' | 'name' | 'transport' | 'command' | 'args' | 'env' | 'url' | 'headers'
>;

/**
 * The environment of a spawned server: the given variables plus PATH, nothing of the service's own. The SDK
 * adds HOME, SHELL, USER … to whatever it is given; undefined values make Node's spawn leave them out.
 */
export const stdioEnvironment = (env: Record<string, string> | null): Record<string, string> => {
  const withheld = Object.fromEntries(
    DEFAULT_INHERITED_ENV_VARS.filter((name) => name !== 'PATH').map((name) => [name, undefined]),
  );
  return { ...withheld, ...(env ?? {}) } as Record<string, string>;
};

/** A new, unstarted transport to the server; http ones go through the SSRF-guarded client. */
export function createMcpTransport(endpoint: McpEndpoint, outbound: OutboundClient): Transport {
  if (endpoint.transport === 'stdio') {
    return new StdioClientTransport({
      command: endpoint.command ?? '',
      args: endpoint.args ?? [],
      env: stdioEnvironment(endpoint.env),
      stderr: 'pipe',
    });
  }
  return new StreamableHTTPClientTransport(new URL(endpoint.url ?? ''), {
    fetch: outbound.fetch,
    requestInit: { headers: endpoint.headers ?? {} },
  });
}
