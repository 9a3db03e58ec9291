import { conditionNode } from './condition-node';
import { endNode } from './end-node';
import { llmNode } from './llm-node';
import { loopNode } from './loop-node';
import { mapNode } from './map-node';
import { startNode } from './start-node';
import { templateNode } from './template-node';
import { toolNode } from './tool-node';

/** Every node type and its handler: a new node type is one entry here. */
export const NODE_HANDLERS = {
  start: startNode,
  llm: llmNode,
  template: templateNode,
  condition: conditionNode,
  tool: toolNode,
  map: mapNode,
  loop: loopNode,
  end: endNode,
};

export type NodeHandlers = typeof NODE_HANDLERS;
export type NodeType = keyof NodeHandlers;
export const NODE_TYPES = Object.keys(NODE_HANDLERS) as NodeType[];
