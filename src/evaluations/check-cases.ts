import { Type } from '@sinclair/typebox';
import type { FieldProblem } from '../common/errors/domain-error';
import { createAjv } from '../json-schema/create-ajv';
import { compileSafePattern } from '../json-schema/safe-regexp';
import { freeObject } from '../json-schema/schema-helpers';
import { isRecord } from '../shared/is-record';
import { errorMessage } from '../shared/error-text';
import {
  type Assertion,
  ASSERTION_SCHEMAS,
  ASSERTION_TYPES,
  type TestCase,
  TEST_CASE_SCHEMA,
} from './test-case.schema';
import { checkCassette } from './cassette';
import { schemaKey, schemaValidator } from './schema-validator';

const ajv = createAjv('draft-07');
// The case's own fields first; each assertion is then checked against the schema of its `type`, so a problem
// names that assertion's field instead of every branch of a union.
const validateCase = ajv.compile({
  ...TEST_CASE_SCHEMA,
  properties: { ...TEST_CASE_SCHEMA.properties, assertions: Type.Array(freeObject()) },
});
const assertionValidators = Object.fromEntries(
  ASSERTION_TYPES.map((type) => [type, ajv.compile(ASSERTION_SCHEMAS[type])]),
) as Record<string, ReturnType<typeof ajv.compile>>;

const problemsOf = (errors: typeof validateCase.errors, at: string): FieldProblem[] =>
  (errors ?? []).map((error) => {
    const extra =
      error.keyword === 'additionalProperties'
        ? ` "${(error.params as { additionalProperty: string }).additionalProperty}"`
        : '';
    const path = error.instancePath.split('/').slice(1).join('.');
    return { field: path ? `${at}.${path}` : at, message: `${error.message ?? 'is invalid'}${extra}` };
  });

/** A JSON Schema an assertion carries must compile: a broken one is the author's error, not a failed case. */
const schemaProblem = (schema: Record<string, unknown>, field: string): FieldProblem[] => {
  try {
    schemaValidator.validate(schemaKey(schema), schema, null);
    return [];
  } catch (error) {
    return [{ field, message: `is not a usable JSON Schema: ${errorMessage(error)}` }];
  }
};

function checkAssertion(assertion: Assertion | Record<string, unknown>, at: string): FieldProblem[] {
  const type = assertion.type;
  if (typeof type !== 'string' || !(ASSERTION_TYPES as string[]).includes(type)) {
    return [{ field: `${at}.type`, message: `must be one of ${ASSERTION_TYPES.join(', ')}` }];
  }
  const validate = assertionValidators[type];
  if (!validate(assertion)) return problemsOf(validate.errors, at);
  // Beyond the schema: a pattern RE2 compiles, schemas ajv compiles.
  const checked = assertion as Assertion;
  if (checked.type === 'text_matches') {
    const compiled = compileSafePattern(checked.pattern);
    return compiled.ok ? [] : [{ field: `${at}.pattern`, message: compiled.message }];
  }
  if (checked.type === 'data_schema') return schemaProblem(checked.schema, `${at}.schema`);
  if (checked.type === 'tool_called' && checked.arguments_schema) {
    return schemaProblem(checked.arguments_schema, `${at}.arguments_schema`);
  }
  return [];
}

/** Problems of a list of cases (`field` names where the list sat); none means each is a TestCase. */
export function checkCases(cases: readonly unknown[], field: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const names = new Set<string>();
  cases.forEach((item, index) => {
    const at = `${field}[${index}]`;
    if (!validateCase(item)) {
      problems.push(...problemsOf(validateCase.errors, at));
      return;
    }
    const testCase = item as TestCase;
    if (names.has(testCase.name))
      problems.push({ field: `${at}.name`, message: `duplicate case name "${testCase.name}"` });
    names.add(testCase.name);
    testCase.assertions.forEach((assertion, position) => {
      problems.push(...checkAssertion(assertion, `${at}.assertions[${position}]`));
    });
    if (testCase.cassette !== undefined) problems.push(...checkCassette(testCase.cassette, `${at}.cassette`));
  });
  return problems;
}

/**
 * Cases from JSON Lines text: one case object per non-empty line. A line that is not JSON is a problem naming
 * `jsonl` and its line number.
 */
export function parseCasesJsonl(text: string): { cases: unknown[]; problems: FieldProblem[] } {
  const cases: unknown[] = [];
  const problems: FieldProblem[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      const parsed: unknown = JSON.parse(line);
      if (!isRecord(parsed))
        problems.push({ field: `jsonl:${index + 1}`, message: 'must be a JSON object (one case)' });
      else cases.push(parsed);
    } catch (error) {
      problems.push({ field: `jsonl:${index + 1}`, message: `is not JSON: ${errorMessage(error)}` });
    }
  });
  return { cases, problems };
}
