import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type CallToolResult, ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../shared/error-text';
import type { McpEndpoint } from './mcp-transport';

const STDERR_TAIL_CHARS = 2000;
const MAX_TOOL_PAGES = 50;

interface Connection {
  client: Client;
}

export interface McpConnectionsOptions {
  createTransport: (endpoint: McpEndpoint) => Transport;
  connectTimeoutMs: number;
}

export interface McpCallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /** The call may be sent again when the connection died under it (read-only or idempotent tools). */
  retryable: boolean;
}

const isConnectionLost = (error: unknown): boolean =>
  (error instanceof McpError && error.code === Number(ErrorCode.ConnectionClosed)) ||
  ['EPIPE', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END'].includes(
    (error as NodeJS.ErrnoException | undefined)?.code ?? '',
  ) ||
  /not connected/i.test(errorMessage(error));

/**
 * One connection per MCP server, opened on first use and shared by every call. A connection whose transport
 * closes (the process died, the HTTP session ended) leaves the pool, so the next use opens a new one.
 */
export class McpConnections {
  private readonly connections = new Map<string, Promise<Connection>>();

  constructor(private readonly options: McpConnectionsOptions) {}

  isConnected(serverId: string): boolean {
    return this.connections.has(serverId);
  }

  async listTools(endpoint: McpEndpoint): Promise<Tool[]> {
    const { client } = await this.connection(endpoint);
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page += 1) {
      const result = await client.listTools(cursor ? { cursor } : {}, { timeout: this.options.connectTimeoutMs });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  async callTool(
    endpoint: McpEndpoint,
    name: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<CallToolResult> {
    try {
      return await this.callOnce(endpoint, name, args, options);
    } catch (error) {
      if (!options.retryable || !isConnectionLost(error) || options.signal.aborted) throw error;
      await this.close(endpoint.id);
      return this.callOnce(endpoint, name, args, options);
    }
  }

  /** Closes the server's connection (a stdio server's process ends with it). */
  async close(serverId: string): Promise<void> {
    const pending = this.connections.get(serverId);
    this.connections.delete(serverId);
    const connection = await pending?.catch(() => undefined);
    await connection?.client.close().catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.connections.keys()].map((id) => this.close(id)));
  }

  private async callOnce(
    endpoint: McpEndpoint,
    name: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<CallToolResult> {
    const { client } = await this.connection(endpoint);
    const result = await client.callTool({ name, arguments: args }, undefined, {
      signal: options.signal,
      timeout: options.timeoutMs,
    });
    if ('toolResult' in result) {
      // A server on the 2024-10-07 protocol answers with `toolResult` instead of content.
      return { content: [{ type: 'text', text: JSON.stringify(result.toolResult) }] };
    }
    return result;
  }

  private connection(endpoint: McpEndpoint): Promise<Connection> {
    const existing = this.connections.get(endpoint.id);
    if (existing) return existing;
    const pending = this.open(endpoint, () => {
      if (this.connections.get(endpoint.id) === pending) this.connections.delete(endpoint.id);
    });
    this.connections.set(endpoint.id, pending);
    pending.catch(() => {
      if (this.connections.get(endpoint.id) === pending) this.connections.delete(endpoint.id);
    });
    return pending;
  }

  private async open(endpoint: McpEndpoint, onClose: () => void): Promise<Connection> {
    const transport = this.options.createTransport(endpoint);
    let stderr = '';
    if (transport instanceof StdioClientTransport) {
      transport.stderr?.on('data', (chunk: Buffer) => {
        stderr = `${stderr}${chunk.toString('utf8')}`.slice(-STDERR_TAIL_CHARS);
      });
    }
    const client = new Client({ name: 'toolflow', version: '0.1.0' }, { capabilities: {} });
    client.onclose = onClose;
    // Transport-level errors (a write to a dead process) also surface as failed requests; no crash here.
    client.onerror = () => undefined;
    try {
      await client.connect(transport, { timeout: this.options.connectTimeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      const output = stderr.trim();
      throw new Error(
        `could not connect to MCP server "${endpoint.name}": ${errorMessage(error, { descriptive: true })}` +
          (output ? `; its stderr ends with: ${output.slice(-500)}` : ''),
        { cause: error },
      );
    }
    return { client };
  }
}
