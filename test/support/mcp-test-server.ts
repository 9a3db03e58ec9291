import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  type CallToolResult,
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { type HttpTestServer, startHttpTestServer } from './http-test-server';

export interface McpTestTool {
  tool: Tool;
  call: (args: Record<string, unknown>) => CallToolResult;
}

/**
 * A Streamable HTTP MCP server built with the official SDK (stateless: a server per request) whose tool list a
 * test can change between calls. It records every HTTP request (headers included).
 */
export class McpTestServer {
  tools: McpTestTool[] = [];
  readonly calls: Array<{ name: string; arguments: Record<string, unknown> }> = [];

  private constructor(private readonly http: HttpTestServer) {}

  static async start(tools: McpTestTool[] = []): Promise<McpTestServer> {
    const state: { self?: McpTestServer } = {};
    const http = await startHttpTestServer(async (recorded, response, raw) => {
      const server = new Server({ name: 'test-server', version: '1.0.0' }, { capabilities: { tools: {} } });
      const self = state.self as McpTestServer;
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: self.tools.map((entry) => entry.tool) }));
      server.setRequestHandler(CallToolRequestSchema, (request) => {
        const args = request.params.arguments ?? {};
        self.calls.push({ name: request.params.name, arguments: args });
        const entry = self.tools.find((candidate) => candidate.tool.name === request.params.name);
        if (!entry) return { isError: true, content: [{ type: 'text', text: `no tool ${request.params.name}` }] };
        return entry.call(args);
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      response.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      const body: unknown = recorded.body ? JSON.parse(recorded.body) : undefined;
      await transport.handleRequest(raw, response, body);
    });
    const created = new McpTestServer(http);
    created.tools = tools;
    state.self = created;
    return created;
  }

  get url(): string {
    return `${this.http.origin}/mcp`;
  }

  get requests() {
    return this.http.requests;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
