import type { Principal } from '../../common/auth/principal';
import type { RegistryService } from '../../registry/registry.service';
import { type ToolDefinition, toolName } from '../../shared/tool-definition';
import type { ToolPin } from '../../tools/stored-tool';
import type { CheckedDefinition } from '../definition-checker.service';

export interface RunTools {
  /** Each node's tools: the ones it names, then what its selectors add. */
  byNode: Map<string, readonly ToolDefinition[]>;
  /** The version of each of them, by tool name: what the run is pinned to. */
  pins: Record<string, ToolPin>;
}

/**
 * Every tool a run may use, resolved once when it is created: a tool edited while the run goes on does not change
 * it, because every later step uses these versions (in this process the definitions, elsewhere the pins).
 */
export async function resolveRunTools(
  checked: CheckedDefinition,
  principal: Principal,
  registry: RegistryService,
): Promise<RunTools> {
  const byNode = new Map<string, readonly ToolDefinition[]>();
  const pins: Record<string, ToolPin> = {};
  for (const [nodeId, use] of checked.toolUses) {
    const named = checked.tools?.get(nodeId) ?? [];
    const selectors = use.selectors ?? [];
    const tools = selectors.length === 0 ? named : await registry.expandSelectors(named, selectors, principal);
    byNode.set(nodeId, tools);
    for (const tool of tools) {
      if (tool.id !== undefined && tool.version !== undefined)
        pins[toolName(tool)] = { id: tool.id, version: tool.version };
    }
  }
  return { byNode, pins };
}
