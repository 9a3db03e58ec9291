import { RE2JS } from 're2js';
import type { Condition, ConditionNodeData } from '../definition.types';
import { resolveReferences } from '../references';
import type { NodeHandler } from './node-handler';

const text = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);

const isEmpty = (value: unknown): boolean =>
  value === undefined ||
  value === null ||
  value === '' ||
  (Array.isArray(value) && value.length === 0) ||
  (typeof value === 'object' && Object.keys(value).length === 0);

/** Conditions are data: a closed set of operators, never evaluated as code; `matches` uses linear-time RE2. */
export function evaluateCondition({ left, op, right }: Condition): boolean {
  switch (op) {
    case 'equals':
      return text(left) === text(right);
    case 'not_equals':
      return text(left) !== text(right);
    case 'contains':
      return Array.isArray(left) ? left.some((item) => text(item) === text(right)) : text(left).includes(text(right));
    case 'not_contains':
      return !evaluateCondition({ left, op: 'contains', right });
    case 'starts_with':
      return text(left).startsWith(text(right));
    case 'ends_with':
      return text(left).endsWith(text(right));
    case 'greater_than':
      return Number(text(left)) > Number(text(right));
    case 'less_than':
      return Number(text(left)) < Number(text(right));
    case 'is_empty':
      return isEmpty(left);
    case 'is_not_empty':
      return !isEmpty(left);
    case 'matches':
      return RE2JS.compile(text(right)).matcher(text(left)).find();
    default: {
      const unknownOp: never = op;
      throw new Error(`unknown condition operator ${String(unknownOp)}`);
    }
  }
}

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
