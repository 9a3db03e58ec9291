import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ToolEffect } from '../shared/tool-types';
import type { StoredTool } from '../tools/stored-tool';

const ANNOTATIONS: { [K in ToolEffect]: ToolAnnotations } = {
  read_only: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  idempotent: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  mutating: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  dangerous: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
};

/** A stored tool as an MCP client sees it: its parameters are the inputSchema, its effect the annotations. */
export const toMcpTool = (tool: StoredTool): Tool => ({
  name: tool.name,
  description: tool.functionSchema.function.description ?? '',
  inputSchema: tool.functionSchema.function.parameters as Tool['inputSchema'],
  annotations: ANNOTATIONS[tool.effect],
});
