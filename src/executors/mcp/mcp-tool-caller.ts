import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** Token of the McpToolCaller port (a Port, see common/port.ts); the mcp module registers it. */
export const MCP_TOOL_CALLER = Symbol('MCP_TOOL_CALLER');

export interface McpToolCall {
  /** Name of the registered MCP server. */
  server: string;
  /** The tool's name on that server. */
  tool: string;
  /** Owner of the stored tool: a tool only reaches a server of the same owner. */
  ownerId: string | null;
  arguments: Record<string, unknown>;
  signal: AbortSignal;
  timeoutMs: number;
  /** The call may be sent again when the connection died under it (read-only and idempotent tools). */
  retryable: boolean;
}

/** Port: calls a tool on a registered MCP server over a pooled connection. executors/ declares it, mcp/ implements it. */
export interface McpToolCaller {
  callTool(call: McpToolCall): Promise<CallToolResult>;
}
