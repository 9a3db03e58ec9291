import { Type } from '@sinclair/typebox';
import { enumOf } from '../../json-schema/schema-helpers';
import { resolveReferences } from '../references';
import { CONDITION_OPERATORS, evaluateCondition } from './condition-operators';
import type { NodeHandler } from './node-handler';
import { outputObject } from './output-shape';

const ConditionNodeData = Type.Object(
  {
    label: Type.Optional(Type.String()),
    logic: Type.Optional(enumOf(['and', 'or'], { default: 'and' })),
    conditions: Type.Array(
      Type.Object(
        { left: Type.Unknown(), op: enumOf(CONDITION_OPERATORS), right: Type.Optional(Type.Unknown()) },
        { additionalProperties: false },
      ),
      { minItems: 1 },
    ),
  },
  { additionalProperties: false },
);

/** Evaluates its conditions (all with `and`, any with `or`); the outgoing edges of that branch go on. */
export const conditionNode: NodeHandler<typeof ConditionNodeData> = {
  data: ConditionNodeData,
  output: () =>
    outputObject({
      output: Type.Boolean({ description: 'Whether the conditions hold: the branch (edge condition) that goes on' }),
      results: Type.Array(Type.Boolean(), { description: "Each condition's result, in order" }),
    }),
  branches: true,
  pure: true,
  run: ({ data, scope }) => {
    const results = data.conditions.map((condition) =>
      evaluateCondition({
        op: condition.op,
        left: resolveReferences(condition.left, scope),
        right: resolveReferences(condition.right, scope),
      }),
    );
    const output = data.logic === 'or' ? results.some(Boolean) : results.every(Boolean);
    return Promise.resolve({ output, results });
  },
};
