import type { ChatMessage } from './chat-types';
import type { FunctionTool, ToolCall, ToolEffect } from './tool-types';

/** Who runs the tool and inside what; carried through nested workflow tools. */
export interface ToolRunContext {
  runId: string | null;
  userId: string;
  isAdmin: boolean;
  signal: AbortSignal;
  /** Nesting depth of workflow-as-tool calls; 0 at the top. */
  depth: number;
}

export interface ToolExecuteContext<P = Record<string, unknown>> {
  call: ToolCall;
  /** Arguments after parsing and schema validation. */
  params: P;
  /** Snapshot of the conversation so far (empty outside an LLM node). */
  messages: readonly ChatMessage[];
  run: ToolRunContext;
  /** Aborted on timeout or cancellation; executors pass it to every I/O call. */
  signal: AbortSignal;
}

export interface ToolExecuteResult {
  /** The text the model gets back. */
  response: string;
  /** Structured result for API callers and workflow references. */
  data?: unknown;
  /** Facts about the execution (status code, bytes, console output …). */
  metadata?: Record<string, unknown>;
  usage?: { promptTokens: number; completionTokens: number };
  /** Ask the agent loop to stop after this call. */
  stop?: boolean;
}

export type ParseParamsResult<P> = { success: true; data: P } | { success: false; errorMessage: string };

/**
 * An executable tool: the schema the model sees plus how to run it.
 * Produced by the registry from a stored tool row, or declared directly by builtins and tests.
 */
export interface ToolDefinition<P = Record<string, unknown>> {
  /** Stored tool id when the definition comes from the database. */
  id?: string;
  version?: number;
  schema: FunctionTool;
  effect: ToolEffect;
  /** Inside a run, a call waits for a person's decision before it executes (the tool's `requires_approval`). */
  requiresApproval?: boolean;
  /** Per-call time limit; runTool aborts the signal and reports a timeout past it. */
  timeoutMs?: number;
  /** Extra parsing after JSON Schema validation (coercions, cross-field rules). */
  parseParams?(params: Record<string, unknown>): ParseParamsResult<P>;
  execute(context: ToolExecuteContext<P>): Promise<ToolExecuteResult>;
}

export const toolName = (tool: ToolDefinition<never> | ToolDefinition): string => tool.schema.function.name;
