import { Type } from '@sinclair/typebox';
import { freeObject } from '../../json-schema/schema-helpers';
import { resolveReferences } from '../references';
import type { NodeHandler } from './node-handler';
import { outputObject } from './output-shape';

const EndNodeData = Type.Object(
  {
    label: Type.Optional(Type.String()),
    outputs: Type.Optional(freeObject({ description: 'Run outputs; values may reference nodes' })),
  },
  { additionalProperties: false },
);

/** Collects the run outputs: the node's `outputs`, else the definition's, else the last answer (an LLM node's). */
export const endNode: NodeHandler<typeof EndNodeData> = {
  data: EndNodeData,
  output: () => outputObject({ outputs: freeObject({ description: 'The run outputs' }) }),
  exit: true,
  pure: true,
  run: ({ data, scope, definition, handlers }) => {
    const spec = data.outputs ?? definition.outputs;
    if (spec) return Promise.resolve({ outputs: resolveReferences(spec, scope) as Record<string, unknown> });
    const lastAnswer = [...definition.nodes]
      .reverse()
      .find((candidate) => handlers[candidate.type]?.answers === true && candidate.id in scope);
    const output = lastAnswer ? (scope[lastAnswer.id] as { output?: unknown }).output : undefined;
    return Promise.resolve({ outputs: output === undefined ? {} : { output } });
  },
};
