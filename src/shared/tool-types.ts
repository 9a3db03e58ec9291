/** The tool vocabulary every module shares: what the model sees and what it sends back. */

/** What a tool does to the world; decides parallelism and automatic retries. */
export const TOOL_EFFECTS = ['read_only', 'idempotent', 'mutating', 'dangerous'] as const;
export type ToolEffect = (typeof TOOL_EFFECTS)[number];

export const IMPLEMENTATION_TYPES = ['builtin', 'http', 'workflow', 'code', 'mcp'] as const;
export type ImplementationType = (typeof IMPLEMENTATION_TYPES)[number];

/** A JSON Schema object (draft 2020-12 or draft-07). */
export type JsonSchema = Record<string, unknown>;

/** The OpenAI function-tool object: what the model sees. */
export interface FunctionTool {
  type: 'function';
  function: {
    name: string;
    description?: string;
    parameters: JsonSchema;
    strict?: boolean;
  };
}

/** One tool call as the model made it: `arguments` is the raw string the model produced. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}
