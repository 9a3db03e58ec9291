import type { ErrorObject } from 'ajv';
import type { JsonSchema } from '../shared/tool-types';
import type { ArgumentError } from '../shared/argument-error';
import { describeSchema } from './describe-schema';
import { declaresSecret, maskArguments } from '../shared/argument-secrets';
import { appendPointer, unescapePointerSegment } from './json-pointer';

const NOISY_RULES = new Set(['if']);

const propertyOf = (schema: unknown, name: string): unknown => {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const properties = (schema as JsonSchema).properties;
  return typeof properties === 'object' && properties !== null ? (properties as JsonSchema)[name] : undefined;
};

/** Maps ajv's verbose errors to field errors; `required` and `additionalProperties` point at the field itself. */
export function toArgumentErrors(errors: readonly ErrorObject[]): ArgumentError[] {
  const seen = new Set<string>();
  const result: ArgumentError[] = [];
  for (const error of errors) {
    if (NOISY_RULES.has(error.keyword)) continue;
    const mapped = withSecretsMasked(toArgumentError(error), error.parentSchema);
    const key = `${mapped.path}\u0000${mapped.rule}`;
    if (seen.has(key)) continue;
    seen.add(key);
    result.push(mapped);
  }
  return result;
}

/** Errors quote the value they reject: a credential argument's is masked like everywhere else. */
function withSecretsMasked(error: ArgumentError, schema: unknown): ArgumentError {
  if (error.value === undefined) return error;
  const key = unescapePointerSegment(error.path.slice(error.path.lastIndexOf('/') + 1));
  const holder: Record<string, unknown> = {};
  Object.defineProperty(holder, key, { value: error.value, enumerable: true });
  return { ...error, value: maskArguments(holder, declaresSecret(schema) ? new Set([key]) : undefined)[key] };
}

function toArgumentError(error: ErrorObject): ArgumentError {
  const rule = error.keyword;
  const data: unknown = error.data;
  if (rule === 'required') {
    const missing = String((error.params as { missingProperty: string }).missingProperty);
    return {
      path: appendPointer(error.instancePath, missing),
      message: 'is required but missing',
      value: undefined,
      rule,
      expected: describeSchema(propertyOf(error.parentSchema, missing)),
    };
  }
  if (rule === 'additionalProperties') {
    const extra = String((error.params as { additionalProperty: string }).additionalProperty);
    const properties: unknown = error.parentSchema?.properties;
    const allowed = typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
    return {
      path: appendPointer(error.instancePath, extra),
      message: 'is not an allowed property',
      value: typeof data === 'object' && data !== null ? (data as Record<string, unknown>)[extra] : undefined,
      rule,
      expected: allowed.length > 0 ? `no such property; allowed: ${allowed.join(', ')}` : 'no additional properties',
    };
  }
  return {
    path: error.instancePath,
    message: error.message ?? 'is invalid',
    value: data,
    rule,
    expected: describeSchema(error.parentSchema),
  };
}
