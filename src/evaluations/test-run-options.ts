import { DomainError, type FieldProblem } from '../common/errors/domain-error';
import { createAjv } from '../json-schema/create-ajv';
import { RUN_BUDGETS_SCHEMA, type RunBudgets } from '../runs/run-budgets';
import { isRecord } from '../shared/is-record';

export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 16;

/** How a suite is run: which workflow version, how many cases at once, each case's default budgets, which cases. */
export interface TestRunOptions {
  version?: number;
  concurrency: number;
  budgets: RunBudgets;
  /** Only these cases (by name); absent: all. */
  cases?: string[];
}

const validateBudgets = createAjv('draft-07').compile<RunBudgets>(RUN_BUDGETS_SCHEMA);

/** Reads `{version?, concurrency?, budgets?, cases?}`; a bad or unknown field is a 400 naming it. */
export function testRunOptionsOf(body: unknown): TestRunOptions {
  const value = body ?? {};
  if (!isRecord(value)) throw DomainError.validation([{ field: 'body', message: 'must be an object' }]);
  const problems: FieldProblem[] = Object.keys(value)
    .filter((key) => !['version', 'concurrency', 'budgets', 'cases'].includes(key))
    .map((field) => ({ field, message: 'property should not exist' }));
  const { version, concurrency = DEFAULT_CONCURRENCY, budgets = {}, cases } = value;
  if (version !== undefined && !(Number.isInteger(version) && (version as number) >= 1)) {
    problems.push({ field: 'version', message: 'must be an integer of at least 1' });
  }
  if (!Number.isInteger(concurrency) || (concurrency as number) < 1 || (concurrency as number) > MAX_CONCURRENCY) {
    problems.push({ field: 'concurrency', message: `must be an integer from 1 to ${MAX_CONCURRENCY}` });
  }
  if (!validateBudgets(budgets)) {
    for (const error of validateBudgets.errors ?? []) {
      const path = error.instancePath.split('/').slice(1).join('.');
      problems.push({ field: path ? `budgets.${path}` : 'budgets', message: error.message ?? 'is invalid' });
    }
  }
  if (cases !== undefined && !(Array.isArray(cases) && cases.every((name) => typeof name === 'string'))) {
    problems.push({ field: 'cases', message: 'must be an array of case names' });
  }
  if (problems.length > 0) throw DomainError.validation(problems);
  return {
    ...(version === undefined ? {} : { version: version as number }),
    concurrency: concurrency as number,
    budgets: budgets as RunBudgets,
    ...(cases === undefined ? {} : { cases: cases as string[] }),
  };
}
