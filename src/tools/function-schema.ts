import type { FieldProblem } from '../common/errors/domain-error';
import { checkParametersSchema } from '../json-schema/check-parameters-schema';
import type { FunctionTool } from '../shared/tool-types';
import { isRecord } from '../shared/is-record';
import { pointerToField } from '../json-schema/json-pointer';

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

export interface SchemaWarning {
  field: string;
  keyword: string;
  message: string;
  suggestion?: string;
}

export type NormalizedSchema =
  { ok: true; schema: FunctionTool; warnings: SchemaWarning[] } | { ok: false; problems: FieldProblem[] };

/**
 * Accepts the full OpenAI tool object or the bare function, checks it, and returns the full form.
 * `name` and `description` of the request fill in what the function object leaves out.
 */
export function normalizeFunctionSchema(input: unknown, name: string, description: string): NormalizedSchema {
  const problems: FieldProblem[] = [];
  if (!isRecord(input)) {
    return { ok: false, problems: [{ field: 'function_schema', message: 'must be an object' }] };
  }
  let fn: unknown = input;
  let base = 'function_schema';
  if ('type' in input || 'function' in input) {
    if (input.type !== 'function') {
      problems.push({ field: 'function_schema.type', message: 'must be "function"' });
    }
    const extra = Object.keys(input).filter((key) => key !== 'type' && key !== 'function');
    for (const key of extra) {
      problems.push({ field: `function_schema.${key}`, message: 'is not allowed next to "type" and "function"' });
    }
    fn = input.function;
    base = 'function_schema.function';
    if (!isRecord(fn)) {
      problems.push({ field: base, message: 'must be an object with name, description and parameters' });
      return { ok: false, problems };
    }
  }
  const func = fn as Record<string, unknown>;
  const allowed = new Set(['name', 'description', 'parameters', 'strict']);
  for (const key of Object.keys(func).filter((key) => !allowed.has(key))) {
    problems.push({
      field: `${base}.${key}`,
      message: 'is not a property of an OpenAI function (name, description, parameters, strict)',
    });
  }
  const functionName = func.name ?? name;
  if (typeof functionName !== 'string' || !TOOL_NAME_PATTERN.test(functionName)) {
    problems.push({ field: `${base}.name`, message: 'must be 1-64 characters of letters, digits, _ or -' });
  } else if (functionName !== name) {
    problems.push({ field: `${base}.name`, message: `must equal the tool name "${name}", got "${functionName}"` });
  }
  const functionDescription = func.description ?? description;
  if (typeof functionDescription !== 'string') {
    problems.push({ field: `${base}.description`, message: 'must be a string' });
  }
  if (func.strict !== undefined && typeof func.strict !== 'boolean') {
    problems.push({ field: `${base}.strict`, message: 'must be a boolean' });
  }
  const parameters = func.parameters ?? { type: 'object', properties: {} };
  const warnings: SchemaWarning[] = [];
  if (!isRecord(parameters)) {
    problems.push({ field: `${base}.parameters`, message: 'must be a JSON Schema object' });
  } else {
    // Written by a person: a keyword JSON Schema does not know is a mistake, not an annotation (docs/tools.md).
    const check = checkParametersSchema(parameters, { unknownKeywords: 'refuse' });
    for (const problem of check.problems) {
      problems.push({ field: pointerToField(`${base}.parameters`, problem.path), message: problem.message });
    }
    for (const warning of check.warnings) {
      warnings.push({
        field: pointerToField(`${base}.parameters`, warning.path),
        keyword: warning.keyword,
        message: warning.message,
        ...(warning.suggestion ? { suggestion: warning.suggestion } : {}),
      });
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    warnings,
    schema: {
      type: 'function',
      function: {
        name: functionName as string,
        description: functionDescription as string,
        parameters: parameters as Record<string, unknown>,
        ...(func.strict !== undefined ? { strict: func.strict as boolean } : {}),
      },
    },
  };
}
