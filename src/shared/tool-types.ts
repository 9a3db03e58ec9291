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

/**
 * How a call was recovered from a weak model's answer: written into its text as a bare JSON object
 * (`json_answer`), a json code fence, after `[TOOL_CALLS]`, in `<tool_call>` tags, as `<function=…>`, after
 * `<|python_tag|>` or as a Python-style call; a streamed call whose name had junk glued to it (`tool_name`); or
 * arguments that were broken JSON (`arguments`).
 */
export const TOOL_CALL_REPAIR_KINDS = [
  'json_answer',
  'json_fence',
  'tool_calls_list',
  'tool_call_tag',
  'function_tag',
  'python_tag',
  'python_call',
  'tool_name',
  'arguments',
] as const;
export type ToolCallRepairKind = (typeof TOOL_CALL_REPAIR_KINDS)[number];

/** The mark of a repaired call, the same on its events, its log row and the run's record. */
export interface ToolCallRepair {
  kind: ToolCallRepairKind;
}

/** One tool call as the model made it: `arguments` is the raw string the model produced. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
  /** Present when the call was not a clean structured call of the provider (see ToolCallRepairKind). */
  repair?: ToolCallRepair;
}
