import { Injectable } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  type CallToolResult,
  CallToolRequestSchema,
  type ListToolsResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { isAdmin, type Principal } from '../common/auth/principal';
import { ToolCalls } from '../executors/tool-calls.service';
import { RegistryService } from '../registry/registry.service';
import { ToolsService } from '../tools/tools.service';
import { toMcpTool } from './mcp-tool-listing';

const PAGE_SIZE = 200;

const textResult = (text: string, isError = false): CallToolResult => ({
  content: [{ type: 'text', text }],
  ...(isError ? { isError: true } : {}),
});

/** Nobody is asked over MCP: the call would run silently, so it does not run at all. */
const needsApproval = (name: string): string =>
  `Tool "${name}" needs a person's approval before each call, so it cannot be called over MCP; it was not run. ` +
  'It can only run inside a ToolFlow workflow run, where the call waits until a person approves it.';

/**
 * ToolFlow as an MCP server over Streamable HTTP, stateless: every request gets its own protocol server bound to
 * the caller's API key, so any api process can answer any request. Calls run through ToolCalls like every
 * other tool call (validation, logs, use counts, time limits).
 */
@Injectable()
export class McpEndpointService {
  constructor(
    private readonly tools: ToolsService,
    private readonly registry: RegistryService,
    private readonly toolCalls: ToolCalls,
  ) {}

  async handle(principal: Principal, request: Request, response: Response): Promise<void> {
    const server = new Server(
      { name: 'toolflow', version: '0.1.0' },
      { capabilities: { tools: {} }, instructions: 'The ToolFlow tools this API key may use.' },
    );
    server.setRequestHandler(ListToolsRequestSchema, (list) => this.listTools(principal, list.params?.cursor));
    server.setRequestHandler(CallToolRequestSchema, (call, extra) =>
      this.callTool(principal, call.params.name, call.params.arguments ?? {}, extra.signal),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, request.body);
  }

  private async listTools(principal: Principal, cursor: string | undefined): Promise<ListToolsResult> {
    const all = await this.tools.findUsable(null, principal);
    const start = cursor && /^\d+$/.test(cursor) ? Number(cursor) : 0;
    const page = all.slice(start, start + PAGE_SIZE);
    const next = start + PAGE_SIZE < all.length ? String(start + PAGE_SIZE) : undefined;
    return { tools: page.map(toMcpTool), ...(next ? { nextCursor: next } : {}) };
  }

  private async callTool(
    principal: Principal,
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const resolved = await this.registry.resolve([name], principal);
    if (resolved.disabled.length > 0) return textResult(`Tool "${name}" is disabled`, true);
    if (resolved.definitions.length === 0) return textResult(`Unknown tool "${name}"`, true);
    if (resolved.definitions[0].requiresApproval === true) return textResult(needsApproval(name), true);
    const outcome = await this.toolCalls.runCall({
      call: { id: `mcp_${randomUUID()}`, name, arguments: JSON.stringify(args) },
      tools: resolved.definitions,
      context: { runId: null, userId: principal.userId, isAdmin: isAdmin(principal), signal, depth: 0 },
    });
    return textResult(outcome.response, outcome.status !== 'success');
  }
}
