import type { NodeHandler } from './node-handler';

/** The run inputs (validated against the definition's `inputs` schema before the run starts). */
export const startNode: NodeHandler = {
  run: (_node, scope) => Promise.resolve({ ...(scope.inputs as Record<string, unknown>) }),
};
