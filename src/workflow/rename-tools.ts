import type { WorkflowDefinition, WorkflowNode } from './definition.schema';
import type { NodeHandler } from './nodes/node-handler';
import { NODE_HANDLERS } from './nodes/node-handlers';

/** A copy of a definition whose nodes name each tool by `rename(name)` instead (names it maps to themselves stay). */
export function renameToolsIn(definition: WorkflowDefinition, rename: (name: string) => string): WorkflowDefinition {
  return { ...definition, nodes: definition.nodes.map((node) => renameInNode(node, rename)) };
}

/** The node with its tools renamed, and those of the nodes nested in it (map, loop). */
function renameInNode(node: WorkflowNode, rename: (name: string) => string): WorkflowNode {
  const handler = (NODE_HANDLERS as Record<string, NodeHandler | undefined>)[node.type];
  if (!handler || !node.data) return node;
  let data = (handler.renameTools ? handler.renameTools(node.data, rename) : node.data) as Record<string, unknown>;
  const nested = handler.nested?.(data);
  if (nested)
    data = { ...data, [nested.field]: nested.nodes.map((inner) => renameInNode(inner as WorkflowNode, rename)) };
  return { ...node, data } as typeof node;
}
