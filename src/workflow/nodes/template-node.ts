import { renderText } from '../references';
import type { NodeHandler } from './node-handler';

/** Renders `data.template` with references resolved. */
export const templateNode: NodeHandler = {
  run: (node, scope) => Promise.resolve({ output: renderText(node.data.template, scope) }),
};
