import type { ToolExecuteContext, ToolExecuteResult } from '../../shared/tool-definition';
import type { JsonSchema, ToolEffect } from '../../shared/tool-types';

/** Everything builtins need from the outside, passed in by the registry (builtins never read process.env). */
export interface BuiltinEnvironment {
  /** SSRF-guarded outbound HTTP (see ../outbound). */
  outbound: import('../../outbound/outbound-client').OutboundClient;
  files: { root: string | null; maxBytes: number };
  /** Read-only query target for database_query; null when not configured. */
  queryDatabase: { url: string; rowLimit: number; timeoutMs: number } | null;
}

/** A tool that ships with ToolFlow. One file per tool under builtin/, listed in builtin-tools.ts. */
export interface BuiltinTool<P = Record<string, unknown>> {
  name: string;
  description: string;
  category: string;
  parameters: JsonSchema;
  effect: ToolEffect;
  timeoutMs?: number;
  /** Why configuration leaves this builtin unusable (e.g. a missing root directory), or null when it is usable. */
  unavailableReason?(env: BuiltinEnvironment): string | null;
  execute(params: P, context: ToolExecuteContext<P>, env: BuiltinEnvironment): Promise<ToolExecuteResult>;
}

export const defineBuiltin = <P>(tool: BuiltinTool<P>): BuiltinTool<P> => tool;
