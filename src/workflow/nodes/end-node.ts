import { resolveReferences } from '../references';
import type { NodeHandler } from './node-handler';

/** Collects the run outputs: the node's `outputs`, else the definition's, else the last LLM answer. */
export const endNode: NodeHandler = {
  run: (node, scope, _run, definition) => {
    const spec = (node.data.outputs as Record<string, unknown> | undefined) ?? definition.outputs;
    if (spec) return Promise.resolve({ outputs: resolveReferences(spec, scope) as Record<string, unknown> });
    const lastLlm = [...definition.nodes]
      .reverse()
      .find((candidate) => candidate.type === 'llm' && candidate.id in scope);
    const output = lastLlm ? (scope[lastLlm.id] as { output?: unknown }).output : undefined;
    return Promise.resolve({ outputs: output === undefined ? {} : { output } });
  },
};
