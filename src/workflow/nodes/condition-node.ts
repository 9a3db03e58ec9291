import type { ConditionNodeData } from '../definition.types';
import { evaluateCondition } from './condition-operators';
import { resolveReferences } from '../references';
import type { NodeHandler } from './node-handler';

export const conditionNode: NodeHandler = {
  run: (node, scope) => {
    const data = node.data as unknown as ConditionNodeData;
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
