import type { ValidateFunction } from 'ajv';
import { createAjv } from '../json-schema/create-ajv';
import type { StoredTool, ToolExecutor, UnusableTool } from './executor';
import type { ConfigProblem, ImplementationTypeDescription } from '../tools/tool-implementations';
import { type ToolDefinition } from '../shared/tool-definition';
import { maskSecrets, restoreMaskedSecrets, SECRET_MASK } from '../shared/secrets';
import { IMPLEMENTATION_TYPES, type ImplementationType } from '../shared/tool-types';
import type {
  DerivedParameters,
  ImplementationCaller,
  ImplementationDefaults,
  ShippedTool,
  ToolImplementations,
} from '../tools/tool-implementations';

type ExecutorMap = { [K in ImplementationType]: ToolExecutor<never> };

function pointerGet(target: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .reduce<unknown>(
      (node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined),
      target,
    );
}

function pointerSet(target: Record<string, unknown>, pointer: string, value: unknown): void {
  const keys = pointer.split('/').slice(1);
  let node: Record<string, unknown> = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (!next || typeof next !== 'object') return;
    node = next as Record<string, unknown>;
  }
  const last = keys[keys.length - 1];
  if (last in node) node[last] = value;
}

/**
 * The closed map from implementation type to executor. Building it with a missing type fails to compile,
 * so adding a type means writing its executor and listing it here — nowhere else. It is the
 * ToolImplementations port of tools/: every per-type rule of the Tools API comes from an executor.
 */
export class ExecutorCatalog implements ToolImplementations {
  private readonly ajv = createAjv('draft-07', { useDefaults: true });
  private readonly validators = new Map<ImplementationType, ValidateFunction>();

  constructor(private readonly executors: ExecutorMap) {
    for (const type of IMPLEMENTATION_TYPES) {
      this.validators.set(type, this.ajv.compile(executors[type].configSchema));
    }
  }

  get(type: ImplementationType): ToolExecutor<Record<string, unknown>> {
    return this.executors[type];
  }

  describe(): ImplementationTypeDescription[] {
    return IMPLEMENTATION_TYPES.map((type) => {
      const executor = this.executors[type];
      const variants = executor.variants?.();
      return {
        type,
        description: executor.configDescription,
        config_schema: executor.configSchema,
        ...(variants ? { builtins: variants } : {}),
      };
    });
  }

  /** Validates (and fills defaults into) a config; problems carry JSON pointers inside the config. */
  validateConfig(
    type: ImplementationType,
    config: Record<string, unknown>,
    tool: Pick<StoredTool, 'name' | 'functionSchema'>,
  ): ConfigProblem[] | Promise<ConfigProblem[]> {
    const validate = this.validators.get(type);
    if (!validate) return [{ path: '', message: `unknown implementation type "${type}"` }];
    if (!validate(config)) {
      return (validate.errors ?? []).map((error) => {
        const extra =
          error.keyword === 'additionalProperties'
            ? ` "${(error.params as { additionalProperty: string }).additionalProperty}"`
            : error.keyword === 'enum'
              ? `: ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`
              : '';
        return { path: error.instancePath, message: `${error.message ?? 'is invalid'}${extra}` };
      });
    }
    return this.get(type).validateConfig?.(config, tool) ?? [];
  }

  /** A copy of the config with every secret (credential-named values, and the executor's secretPaths) masked. */
  mask(type: ImplementationType, config: Record<string, unknown>): Record<string, unknown> {
    const copy = maskSecrets(config);
    for (const pointer of this.executors[type].secretPaths) {
      const value = pointerGet(copy, pointer);
      if (typeof value === 'string' && value.length > 0) pointerSet(copy, pointer, SECRET_MASK);
    }
    return copy;
  }

  /** Keeps stored secrets where a client sent the mask back unchanged (GET then PUT must not wipe them). */
  restoreSecrets(
    type: ImplementationType,
    next: Record<string, unknown>,
    previous: Record<string, unknown>,
  ): Record<string, unknown> {
    const merged = restoreMaskedSecrets(next, previous);
    for (const pointer of this.executors[type].secretPaths) {
      if (pointerGet(merged, pointer) === SECRET_MASK) pointerSet(merged, pointer, pointerGet(previous, pointer));
    }
    return merged;
  }

  async deriveParameters(
    type: ImplementationType,
    config: Record<string, unknown>,
    caller: ImplementationCaller,
  ): Promise<DerivedParameters | undefined> {
    return this.executors[type].deriveParameters?.(config, caller);
  }

  adminOnly(type: ImplementationType): boolean {
    return this.executors[type].adminOnly ?? false;
  }

  defaults(type: ImplementationType, toolName: string, config: Record<string, unknown>): ImplementationDefaults {
    return this.executors[type].defaults?.(toolName, config) ?? {};
  }

  shippedTools(): ShippedTool[] {
    return IMPLEMENTATION_TYPES.flatMap((type) => this.executors[type].shippedTools?.() ?? []);
  }

  async unusableReason(tool: StoredTool, caller: ImplementationCaller): Promise<UnusableTool | null> {
    return (await this.get(tool.implementationType).unusableReason?.(tool.implementationConfig, caller)) ?? null;
  }

  async toDefinition(tool: StoredTool): Promise<ToolDefinition> {
    const definition = await this.get(tool.implementationType).toDefinition(tool);
    return tool.requiresApproval ? { ...definition, requiresApproval: true } : definition;
  }
}
