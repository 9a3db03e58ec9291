import type { FunctionTool, ImplementationType, JsonSchema, ToolEffect } from '../shared/tool-types';

/** Injection token of the ToolImplementations port; the executors module (executors/) provides it. */
export const TOOL_IMPLEMENTATIONS = Symbol('TOOL_IMPLEMENTATIONS');

export interface ConfigProblem {
  /** JSON pointer inside implementation_config. */
  path: string;
  message: string;
}

/** Who saves the tool; what a config may point at can depend on it (a workflow the caller can see). */
export interface ImplementationCaller {
  userId: string;
  isAdmin: boolean;
}

/** Parameters a config implies: a schema, or why the config points at nothing usable. */
export type DerivedParameters = { ok: true; parameters: JsonSchema } | { ok: false; problems: ConfigProblem[] };

/** Defaults a type offers for a tool's optional fields. */
export interface ImplementationDefaults {
  category?: string;
  effect?: ToolEffect;
}

/** A tool this build ships; stored as a public row at start. */
export interface ShippedTool {
  name: string;
  description: string;
  category: string;
  effect: ToolEffect;
  implementationType: ImplementationType;
  functionSchema: FunctionTool;
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

/**
 * Port: everything tools/ needs to know about implementation types. Each rule lives with its type's
 * executor in executors/, which provides this; tools/ never names a type.
 */
export interface ToolImplementations {
  describe(): ImplementationTypeDescription[];
  /** Validates (and fills defaults into) a config; problems carry JSON pointers inside the config. */
  validateConfig(
    type: ImplementationType,
    config: Record<string, unknown>,
    tool: { name: string; functionSchema: FunctionTool },
  ): ConfigProblem[] | Promise<ConfigProblem[]>;
  /** A copy of the config with every secret masked. */
  mask(type: ImplementationType, config: Record<string, unknown>): Record<string, unknown>;
  /** Keeps stored secrets where a client sent the mask back unchanged (GET then PUT must not wipe them). */
  restoreSecrets(
    type: ImplementationType,
    next: Record<string, unknown>,
    previous: Record<string, unknown>,
  ): Record<string, unknown>;
  /** The parameters a tool without its own takes from its config; undefined when the type implies none. */
  deriveParameters(
    type: ImplementationType,
    config: Record<string, unknown>,
    caller: ImplementationCaller,
  ): Promise<DerivedParameters | undefined>;
  /** Whether only admins may create tools of this type. */
  adminOnly(type: ImplementationType): boolean;
  defaults(type: ImplementationType, toolName: string, config: Record<string, unknown>): ImplementationDefaults;
  shippedTools(): ShippedTool[];
}
