import { type Static, Type } from '@sinclair/typebox';
import type { ToolExecutor } from '../executor';
import { toToolResult } from './mcp-content';
import type { McpToolCaller } from './mcp-tool-caller';

/** `implementation_config` of an `mcp` tool; written by POST /mcp-servers and its sync. */
const McpToolConfig = Type.Object(
  {
    server: Type.String({ minLength: 1, maxLength: 64, description: 'Name of the registered MCP server' }),
    tool: Type.String({ minLength: 1, maxLength: 256, description: 'The tool’s name on that server' }),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 3_600_000 })),
  },
  { additionalProperties: false },
);
export type McpToolConfig = Static<typeof McpToolConfig>;

/**
 * `mcp` implementation type: a tool of a registered MCP server, called over the server's pooled connection.
 * `caller` is looked up per use: the mcp module that provides it is built on top of this one.
 */
export function createMcpExecutor(caller: () => McpToolCaller, defaultTimeoutMs: number): ToolExecutor<McpToolConfig> {
  return {
    type: 'mcp',
    configDescription:
      'Calls the tool `tool` of the registered MCP server `server` (see /mcp-servers, which creates these tools). ' +
      'The server must belong to the tool’s owner.',
    configSchema: McpToolConfig,
    secretPaths: [],
    defaults: () => ({ category: 'mcp' }),
    toDefinition(tool) {
      const timeoutMs = tool.implementationConfig.timeout_ms ?? defaultTimeoutMs;
      return {
        id: tool.id,
        version: tool.version,
        schema: tool.functionSchema,
        effect: tool.effect,
        timeoutMs,
        async execute(context) {
          const result = await caller().callTool({
            server: tool.implementationConfig.server,
            tool: tool.implementationConfig.tool,
            ownerId: tool.userId,
            arguments: context.params,
            signal: context.signal,
            timeoutMs,
            retryable: tool.effect === 'read_only' || tool.effect === 'idempotent',
          });
          return toToolResult(result);
        },
      };
    },
  };
}
