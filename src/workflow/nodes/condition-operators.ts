import { RE2JS } from 're2js';

const text = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);

const isEmpty = (value: unknown): boolean =>
  value === undefined ||
  value === null ||
  value === '' ||
  (Array.isArray(value) && value.length === 0) ||
  (typeof value === 'object' && Object.keys(value).length === 0);

const contains = (left: unknown, right: unknown): boolean =>
  Array.isArray(left) ? left.some((item) => text(item) === text(right)) : text(left).includes(text(right));

/**
 * Conditions are data: a closed set of operators, never evaluated as code; `matches` uses linear-time RE2.
 * Adding an operator is one entry here; the definition schema's enum is derived from these keys.
 */
const OPERATORS = {
  equals: (left, right) => text(left) === text(right),
  not_equals: (left, right) => text(left) !== text(right),
  contains,
  not_contains: (left, right) => !contains(left, right),
  starts_with: (left, right) => text(left).startsWith(text(right)),
  ends_with: (left, right) => text(left).endsWith(text(right)),
  greater_than: (left, right) => Number(text(left)) > Number(text(right)),
  less_than: (left, right) => Number(text(left)) < Number(text(right)),
  is_empty: (left) => isEmpty(left),
  is_not_empty: (left) => !isEmpty(left),
  matches: (left, right) => RE2JS.compile(text(right)).matcher(text(left)).find(),
} satisfies Record<string, (left: unknown, right: unknown) => boolean>;

export type ConditionOperator = keyof typeof OPERATORS;
export const CONDITION_OPERATORS = Object.keys(OPERATORS) as ConditionOperator[];

export interface Condition {
  left: unknown;
  op: ConditionOperator;
  right?: unknown;
}

export function evaluateCondition({ left, op, right }: Condition): boolean {
  if (!Object.hasOwn(OPERATORS, op)) throw new Error(`unknown condition operator ${String(op)}`);
  return OPERATORS[op](left, right);
}
