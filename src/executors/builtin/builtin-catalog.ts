import type { FunctionTool } from '../../shared/tool-types';
import type { BuiltinTool } from './builtin-tool';

/** The builtin tools this build offers, by name. */
export class BuiltinCatalog {
  private readonly byName: Map<string, BuiltinTool<never>>;

  constructor(tools: ReadonlyArray<BuiltinTool<never>>) {
    this.byName = new Map(tools.map((tool) => [tool.name, tool]));
  }

  list(): Array<BuiltinTool<never>> {
    return [...this.byName.values()];
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /** The builtin a stored row runs: `implementation_config.builtin`, else the row's own name. */
  find(toolName: string, config: Record<string, unknown>): BuiltinTool<never> | undefined {
    const name = typeof config.builtin === 'string' ? config.builtin : toolName;
    return this.byName.get(name);
  }

  schemaOf(tool: BuiltinTool<never>): FunctionTool {
    return {
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    };
  }
}
