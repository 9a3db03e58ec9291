import { DomainError, type FieldProblem } from '../../common/errors/domain-error';
import { createAjv } from '../../json-schema/create-ajv';
import { RUN_BUDGET_FIELDS, RUN_BUDGETS_SCHEMA, type RunBudgets } from '../../runs/run-budgets';
import { isRecord } from '../../shared/is-record';

/** A run request body: `inputs`, the run budgets, and `definition` for inline runs (left unchecked here). */
export interface RunRequest {
  inputs: unknown;
  budgets: RunBudgets;
  definition?: unknown;
}

const validateBudgets = createAjv('draft-07').compile<RunBudgets>(RUN_BUDGETS_SCHEMA);

/** The run budgets of a request body, each checked; problems name the field. */
function budgetsOf(body: Record<string, unknown>): RunBudgets {
  const budgets = Object.fromEntries(
    RUN_BUDGET_FIELDS.filter((field) => body[field] !== undefined).map((field) => [field, body[field]]),
  );
  if (validateBudgets(budgets)) return budgets;
  const problems: FieldProblem[] = (validateBudgets.errors ?? []).map((error) => ({
    field: error.instancePath.replace(/^\//, '') || 'body',
    message: error.message ?? 'is invalid',
  }));
  throw DomainError.validation(problems);
}

/** Reads `{inputs?, definition?, max_total_tokens?, max_tool_calls?, timeout_ms?}`; anything else is a 400 naming it. */
export function runRequestOf(body: unknown): RunRequest {
  if (body === undefined || body === null) return { inputs: {}, budgets: {} };
  if (!isRecord(body)) {
    throw DomainError.validation([{ field: 'body', message: 'must be an object like {"inputs": {…}}' }]);
  }
  const allowed = new Set<string>(['inputs', 'definition', ...RUN_BUDGET_FIELDS]);
  const unknownKeys = Object.keys(body).filter((key) => !allowed.has(key));
  if (unknownKeys.length > 0) {
    throw DomainError.validation(unknownKeys.map((field) => ({ field, message: 'property should not exist' })));
  }
  return { inputs: body.inputs, budgets: budgetsOf(body), definition: body.definition };
}

/** The budgets a run gets: each one the request sets, else the definition's. */
export function effectiveBudgets(definition: RunBudgets, request: RunBudgets): RunBudgets | null {
  const merged = Object.fromEntries(
    RUN_BUDGET_FIELDS.map((field) => [field, request[field] ?? definition[field]]).filter(
      ([, value]) => value !== undefined,
    ),
  ) as RunBudgets;
  return Object.keys(merged).length > 0 ? merged : null;
}
