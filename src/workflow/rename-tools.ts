import type { WorkflowDefinition } from './definition.schema';
import type { NodeHandler } from './nodes/node-handler';
import { NODE_HANDLERS } from './nodes/node-handlers';

/** A copy of a definition whose nodes name each tool by `rename(name)` instead (names it maps to themselves stay). */
export function renameToolsIn(definition: WorkflowDefinition, rename: (name: string) => string): WorkflowDefinition {
  return {
    ...definition,
    nodes: definition.nodes.map((node) => {
      const handler = (NODE_HANDLERS as Record<string, NodeHandler | undefined>)[node.type];
      if (!handler?.renameTools || !node.data) return node;
      return { ...node, data: handler.renameTools(node.data, rename) } as typeof node;
    }),
  };
}
