import type { ToolDefinition } from '../shared/tool-definition';
import type { ImplementationType, JsonSchema } from '../shared/tool-types';
import type { StoredTool as ToolsStoredTool } from '../tools/stored-tool';
import type {
  ConfigProblem,
  DerivedParameters,
  ExecutorVariant,
  ImplementationCaller,
  ImplementationDefaults,
  ShippedTool,
} from '../tools/tool-implementations';

/** Why an enabled tool cannot do its job now: what it depends on (e.g. the workflow it runs), and what is wrong. */
export interface UnusableTool {
  /** Name (or id) of what the tool depends on, as far as it could be found. */
  dependency: string;
  reason: string;
}

/** The fields of a stored tool an executor needs. */
export type StoredTool = Omit<ToolsStoredTool, 'isPublic' | 'enabled'>;

/**
 * One implementation type: how its config is validated, which config values are secret, what it implies
 * for a tool's fields, and how a stored row becomes an executable ToolDefinition.
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
  validateConfig?(
    config: C,
    tool: Pick<StoredTool, 'name' | 'functionSchema'>,
  ): ConfigProblem[] | Promise<ConfigProblem[]>;
  toDefinition(tool: StoredTool & { implementationConfig: C }): ToolDefinition | Promise<ToolDefinition>;
  /** The named tools this type ships (the builtins), and whether configuration leaves each usable. */
  variants?(): ExecutorVariant[];
  /** Only admins create tools of this type. */
  adminOnly?: boolean;
  /** Category and effect for a tool that gives none. */
  defaults?(toolName: string, config: Record<string, unknown>): ImplementationDefaults;
  /** Parameters for a tool that gives none, from its (not yet validated) config. */
  deriveParameters?(
    config: Record<string, unknown>,
    caller: ImplementationCaller,
  ): Promise<DerivedParameters | undefined>;
  /** Why a tool of this type, though enabled, cannot do its job for `caller` now; null when it can. */
  unusableReason?(config: C, caller: ImplementationCaller): Promise<UnusableTool | null>;
  /** Tools seeded as public rows at start. */
  shippedTools?(): ShippedTool[];
}
