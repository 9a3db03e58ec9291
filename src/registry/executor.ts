import type { ToolDefinition } from './tool-definition';
import type { ImplementationType, JsonSchema, ToolEffect, FunctionTool } from '../shared/tool-types';

/** A stored tool as the registry sees it (already mapped out of the entity). */
export interface StoredTool {
  id: string;
  name: string;
  version: number;
  userId: string | null;
  effect: ToolEffect;
  functionSchema: FunctionTool;
  implementationType: ImplementationType;
  implementationConfig: Record<string, unknown>;
}

/**
 * One implementation type: how its config is validated, which config values are secret,
 * and how a stored row becomes an executable ToolDefinition.
 */
export interface ToolExecutor<C = Record<string, unknown>> {
  type: ImplementationType;
  /** JSON Schema of `implementation_config`; validated on save by the Tools API. */
  configSchema: JsonSchema;
  /** One sentence for the API docs. */
  configDescription: string;
  /** JSON pointers (e.g. `/auth/token`) of secrets whose names shared/secrets does not already recognise. */
  secretPaths: readonly string[];
  /** Extra checks beyond the JSON Schema; return problems as `{path, message}`. */
  validateConfig?(config: C, tool: Pick<StoredTool, 'name' | 'functionSchema'>): ConfigProblem[];
  toDefinition(tool: StoredTool & { implementationConfig: C }): ToolDefinition | Promise<ToolDefinition>;
  /** The named tools this type ships (the builtins), and whether configuration leaves each usable. */
  variants?(): ExecutorVariant[];
}

export interface ExecutorVariant {
  name: string;
  description: string;
  parameters: JsonSchema;
  effect: ToolEffect;
  available: boolean;
  /** Why it is unavailable; only when `available` is false. */
  reason?: string;
}

/** One implementation type as GET /tools/implementation-types describes it. */
export interface ImplementationTypeDescription {
  type: ImplementationType;
  description: string;
  config_schema: JsonSchema;
  builtins?: ExecutorVariant[];
}

export interface ConfigProblem {
  /** JSON pointer inside implementation_config. */
  path: string;
  message: string;
}
