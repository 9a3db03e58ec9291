import { compileSafePattern } from '../json-schema/safe-regexp';
import { errorMessage } from '../shared/error-text';
import { isRecord } from '../shared/is-record';
import type { ObservedRun } from './observed-run';
import { schemaKey, schemaValidator } from './schema-validator';
import type { Assertion } from './test-case.schema';

/** One assertion's outcome: pass or fail, and the actual value it looked at. */
export interface AssertionResult {
  type: Assertion['type'];
  passed: boolean;
  /** What the run had (the final text, the matching calls, the token count …). */
  actual: unknown;
  /** Why it failed, or what passed; for a person reading the result. */
  message: string;
  /** False for model-graded assertions (`judge`): the same run may score differently next time. */
  deterministic: boolean;
}

/** A judge's grade of a text: a score from 0 to 1 and its reason. */
export interface JudgeGrade {
  score: number;
  reason: string;
}

/** Grades the final text for a `judge` assertion with the model it names. */
export type Judge = (assertion: Extract<Assertion, { type: 'judge' }>, text: string) => Promise<JudgeGrade>;

/** Whether `actual` holds `expected`: objects by the keys `expected` gives, arrays item by item, the rest equal. */
export function isSubset(expected: unknown, actual: unknown): boolean {
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((item, index) => isSubset(item, actual[index]))
    );
  }
  if (isRecord(expected)) {
    return (
      isRecord(actual) &&
      Object.entries(expected).every(([key, value]) => key in actual && isSubset(value, actual[key]))
    );
  }
  return Object.is(expected, actual);
}

const schemaErrors = (schema: Record<string, unknown>, value: unknown): string | null => {
  const result = schemaValidator.validate(schemaKey(schema), schema, value);
  return result.ok ? null : result.errors.map((error) => `${error.path || '/'}: ${error.message}`).join('; ');
};

const verdict = (assertion: Assertion, passed: boolean, actual: unknown, message: string): AssertionResult => ({
  type: assertion.type,
  passed,
  actual,
  message,
  deterministic: assertion.type !== 'judge',
});

const quoted = (value: unknown) => JSON.stringify(value);

function evaluateToolCalled(assertion: Extract<Assertion, { type: 'tool_called' }>, run: ObservedRun): AssertionResult {
  const calls = run.toolCalls.filter((call) => call.name === assertion.name);
  const actual = calls.map((call) => call.arguments);
  if (calls.length === 0) {
    const called = [...new Set(run.toolCalls.map((call) => call.name))];
    return verdict(
      assertion,
      false,
      actual,
      `"${assertion.name}" was not called (called: ${called.join(', ') || 'none'})`,
    );
  }
  const { arguments_subset: subset, arguments_schema: schema } = assertion;
  const fitting = calls.filter(
    (call) =>
      (subset === undefined || isSubset(subset, call.arguments)) &&
      (schema === undefined || schemaErrors(schema, call.arguments) === null),
  );
  if (fitting.length > 0) return verdict(assertion, true, actual, `"${assertion.name}" was called ${calls.length}×`);
  const why =
    schema !== undefined && subset === undefined
      ? `: ${schemaErrors(schema, calls[0].arguments)}`
      : ` with arguments holding ${quoted(subset)}`;
  return verdict(assertion, false, actual, `no call of "${assertion.name}" fits${why}`);
}

/** The outcome of one deterministic assertion, or of a `judge` with the given judge. Never throws. */
export async function evaluateAssertion(
  assertion: Assertion,
  run: ObservedRun,
  judge?: Judge,
): Promise<AssertionResult> {
  const text = run.text;
  switch (assertion.type) {
    case 'text_equals':
      return verdict(
        assertion,
        text === assertion.value,
        text,
        text === assertion.value ? 'equal' : `expected ${quoted(assertion.value)}`,
      );
    case 'text_contains': {
      const passed = text !== null && text.includes(assertion.value);
      return verdict(assertion, passed, text, passed ? 'contains it' : `does not contain ${quoted(assertion.value)}`);
    }
    case 'text_matches': {
      const compiled = compileSafePattern(assertion.pattern);
      if (!compiled.ok) return verdict(assertion, false, text, compiled.message);
      const passed = text !== null && compiled.regExp.test(text);
      return verdict(assertion, passed, text, passed ? 'matches' : `does not match /${assertion.pattern}/`);
    }
    case 'data_schema': {
      if (run.data === undefined) return verdict(assertion, false, null, 'the run has no `data`');
      const errors = schemaErrors(assertion.schema, run.data);
      return verdict(assertion, errors === null, run.data, errors ?? 'valid');
    }
    case 'data_subset': {
      const passed = isSubset(assertion.value, run.data);
      return verdict(
        assertion,
        passed,
        run.data ?? null,
        passed ? 'holds it' : `does not hold ${quoted(assertion.value)}`,
      );
    }
    case 'tool_called':
      return evaluateToolCalled(assertion, run);
    case 'tool_not_called': {
      const calls = run.toolCalls.filter((call) => call.name === assertion.name).map((call) => call.arguments);
      return verdict(
        assertion,
        calls.length === 0,
        calls,
        calls.length === 0 ? 'not called' : `called ${calls.length}×`,
      );
    }
    case 'max_tool_calls': {
      const actual = run.toolCalls.length;
      return verdict(assertion, actual <= assertion.max, actual, `${actual} tool calls (max ${assertion.max})`);
    }
    case 'stop_reason':
      return verdict(
        assertion,
        run.stopReason === assertion.equals,
        run.stopReason,
        `stop_reason ${quoted(run.stopReason)}`,
      );
    case 'max_tokens':
      return verdict(
        assertion,
        run.totalTokens <= assertion.max,
        run.totalTokens,
        `${run.totalTokens} tokens (max ${assertion.max})`,
      );
    case 'max_duration_ms': {
      const actual = run.durationMs;
      const passed = actual !== null && actual <= assertion.max;
      return verdict(assertion, passed, actual, `${actual ?? 'no'} ms (max ${assertion.max})`);
    }
    case 'judge': {
      if (judge === undefined) return verdict(assertion, false, null, 'no judge is available here');
      if (text === null) return verdict(assertion, false, null, 'the run has no final text to grade');
      try {
        const grade = await judge(assertion, text);
        const passed = grade.score >= assertion.threshold;
        return verdict(
          assertion,
          passed,
          grade.score,
          `score ${grade.score} (threshold ${assertion.threshold}): ${grade.reason}`,
        );
      } catch (error) {
        return verdict(assertion, false, null, `the judge failed: ${errorMessage(error)}`);
      }
    }
  }
}
