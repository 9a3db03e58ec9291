import type { RegistryService, ResolvedTools } from '../../registry/registry.service';
import type { ToolDefinition } from '../../shared/tool-definition';
import type { RunContext } from '../execution/run-context';
import type { ToolUse } from './node-handler';

/**
 * The tools a node uses in this run: the list the run's start resolved (same process), else the versions the
 * run pinned at its start (another worker, a resumed run), else, for a run older than pinning, as they are now.
 * Throws when a named tool is missing or disabled.
 */
export async function toolsOfNode(
  nodeId: string,
  use: ToolUse,
  run: RunContext,
  registry: RegistryService,
): Promise<ToolDefinition[]> {
  const prepared = run.resolvedTools?.get(nodeId);
  if (prepared) return [...prepared];
  const selectors = use.selectors ?? [];
  if (run.toolPins) return usable(await registry.resolvePinned(use.names, selectors, run.toolPins));
  const named = usable(await registry.resolve(use.names, run.principal));
  return selectors.length === 0 ? named : registry.expandSelectors(named, selectors, run.principal);
}

function usable(resolved: ResolvedTools): ToolDefinition[] {
  const problems = [
    ...resolved.missing.map((name) => `tool "${name}" does not exist or may not be used`),
    ...resolved.disabled.map((name) => `tool "${name}" is disabled`),
  ];
  if (problems.length > 0) throw new Error(`tools not available: ${problems.join('; ')}`);
  return resolved.definitions;
}
