import { Type } from '@sinclair/typebox';
import type { NodeHandler } from './node-handler';

const StartNodeData = Type.Object({ label: Type.Optional(Type.String()) }, { additionalProperties: false });

/** The run inputs (validated against the definition's `inputs` schema before the run starts). */
export const startNode: NodeHandler<typeof StartNodeData> = {
  data: StartNodeData,
  output: (_data, { inputs }) => inputs ?? Type.Object({}, { description: 'The run inputs' }),
  entry: true,
  pure: true,
  run: ({ scope }) => Promise.resolve({ ...(scope.inputs as Record<string, unknown>) }),
};
