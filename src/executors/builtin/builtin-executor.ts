import { type Static, Type } from '@sinclair/typebox';
import type { ToolExecutor } from '../executor';
import type { ToolDefinition } from '../../shared/tool-definition';
import type { BuiltinCatalog } from './builtin-catalog';
import type { BuiltinEnvironment } from './builtin-tool';

/** `implementation_config` of a `builtin` tool; `builtin` is one of the catalog's names. */
const configSchema = (names: readonly string[]) =>
  Type.Object(
    {
      builtin: Type.Optional(Type.String({ enum: [...names], description: 'Which builtin to run' })),
      timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 600000 })),
    },
    { additionalProperties: false },
  );
export type BuiltinToolConfig = Static<ReturnType<typeof configSchema>>;

/** `builtin` implementation type: a stored row pointing at one of the tools in BUILTIN_TOOLS. */
export function createBuiltinExecutor(
  catalog: BuiltinCatalog,
  env: BuiltinEnvironment,
): ToolExecutor<BuiltinToolConfig> {
  return {
    type: 'builtin',
    configDescription: 'Runs a tool shipped with ToolFlow; `builtin` names it (defaults to the tool name).',
    configSchema: configSchema(catalog.names()),
    secretPaths: [],
    // A builtin runs with the service's own rights (files, database, network).
    adminOnly: true,
    defaults(toolName, config) {
      const builtin = catalog.find(toolName, config);
      return builtin ? { category: builtin.category, effect: builtin.effect } : {};
    },
    shippedTools: () =>
      catalog.list().map((builtin) => ({
        name: builtin.name,
        description: builtin.description,
        category: builtin.category,
        effect: builtin.effect,
        implementationType: 'builtin' as const,
        functionSchema: catalog.schemaOf(builtin),
      })),
    validateConfig(config, tool) {
      return catalog.find(tool.name, config)
        ? []
        : [
            {
              path: '/builtin',
              message: `no builtin named "${config.builtin ?? tool.name}"; available: ${catalog.names().join(', ')}`,
            },
          ];
    },
    variants: () =>
      catalog.list().map((builtin) => {
        const reason = builtin.unavailableReason?.(env) ?? null;
        return {
          name: builtin.name,
          description: builtin.description,
          parameters: builtin.parameters,
          effect: builtin.effect,
          available: reason === null,
          ...(reason === null ? {} : { reason }),
        };
      }),
    toDefinition(tool): ToolDefinition {
      const builtin = catalog.find(tool.name, tool.implementationConfig);
      if (!builtin) throw new Error(`Tool ${tool.name} points at a builtin that does not exist`);
      const run = builtin as unknown as import('./builtin-tool').BuiltinTool<Record<string, unknown>>;
      return {
        id: tool.id,
        version: tool.version,
        schema: tool.functionSchema,
        effect: tool.effect,
        timeoutMs: tool.implementationConfig.timeout_ms ?? builtin.timeoutMs,
        execute: (context) => run.execute(context.params, context, env),
      };
    },
  };
}
