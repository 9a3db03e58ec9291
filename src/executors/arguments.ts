import { jsonrepair } from 'jsonrepair';
import { parsePythonCalls } from '../llm/python-call';
import { isRecord } from '../shared/is-record';
import { jsonTextDepth, MAX_JSON_DEPTH, parseJsonWithin } from '../shared/json-depth';

export type { ArgumentError } from '../shared/argument-error';
export { ArgumentValidator } from '../json-schema/argument-validator';
export type { ArgumentValidationResult, ArgumentValidatorOptions } from '../json-schema/argument-validator';
export { checkParametersSchema } from '../json-schema/check-parameters-schema';
export type { SchemaCheckResult, SchemaProblem, SchemaWarning } from '../json-schema/check-parameters-schema';
export { formatArgumentErrors } from '../json-schema/format-argument-errors';
export { ParametersSchemaError } from '../json-schema/parameters-schema-error';

export type ParsedArguments =
  { ok: true; value: Record<string, unknown>; repaired: boolean; repairNote?: string } | { ok: false; message: string };

/** Larger argument payloads are refused before any parsing or repair work. */
export const MAX_ARGUMENTS_LENGTH = 1_000_000;
const MAX_DECODE_DEPTH = 2;

const kindOf = (value: unknown): string =>
  Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;

/**
 * Phase 1 of a tool call: turns what the model sent into an arguments object. Tolerates empty
 * input for no-argument tools, markdown fences, single quotes, trailing commas, raw newlines in
 * strings, text around the object and double-encoded JSON; anything repaired is flagged.
 */
export function parseToolArguments(raw: string | object | null): ParsedArguments {
  if (raw === null) return { ok: true, value: {}, repaired: false };
  if (typeof raw !== 'string') {
    return isRecord(raw) ? { ok: true, value: raw, repaired: false } : failure(raw);
  }
  const text = raw.trim();
  if (text === '' || text === 'null') return { ok: true, value: {}, repaired: false };
  if (text.length > MAX_ARGUMENTS_LENGTH) {
    return { ok: false, message: `arguments are too long (${text.length} characters, limit ${MAX_ARGUMENTS_LENGTH})` };
  }

  if (jsonTextDepth(text) > MAX_JSON_DEPTH) {
    return { ok: false, message: `arguments are nested deeper than ${MAX_JSON_DEPTH} levels` };
  }

  const keywords = pythonKeywordArguments(text);
  if (keywords !== null) {
    return { ok: true, value: keywords, repaired: true, repairNote: 'read Python-style keyword arguments' };
  }
  const notes: string[] = [];
  let value = parseLenient(text, notes);
  if (value === undefined) return { ok: false, message: 'arguments are not valid JSON and could not be repaired' };
  for (let depth = 0; typeof value === 'string' && depth < MAX_DECODE_DEPTH; depth++) {
    const inner = value.trim();
    if (!inner.startsWith('{') && !inner.startsWith('`')) break;
    notes.push('decoded arguments that were a JSON-encoded string');
    value = parseLenient(inner, notes);
  }
  if (!isRecord(value)) return failure(value);
  return notes.length > 0
    ? { ok: true, value, repaired: true, repairNote: notes.join('; ') }
    : { ok: true, value, repaired: false };
}

// `add(a=7, b=8)`, `(a=7, b=8)` or `a=7, b=8`: weaker models write the call instead of its JSON arguments.
const PYTHON_CALL = /^[A-Za-z_][\w.-]*\s*\(/;
const KEYWORD_LIST = /^\(?\s*[A-Za-z_]\w*\s*=[^=]/;

function pythonKeywordArguments(text: string): Record<string, unknown> | null {
  const source = PYTHON_CALL.test(text)
    ? text
    : KEYWORD_LIST.test(text)
      ? `f(${text.replace(/^\(([\s\S]*)\)$/, '$1')})`
      : null;
  if (source === null) return null;
  const calls = parsePythonCalls(source);
  return calls?.length === 1 ? calls[0].arguments : null;
}

function failure(value: unknown): ParsedArguments {
  return { ok: false, message: `arguments must be a JSON object, got ${kindOf(value)}` };
}

function parseLenient(text: string, notes: string[]): unknown {
  try {
    return parseJsonWithin(text);
  } catch {
    // fall through to repair
  }
  try {
    const repaired = parseJsonWithin(jsonrepair(text));
    notes.push('repaired malformed JSON');
    return repaired;
  } catch {
    // jsonrepair rejects text around the object; try the first balanced object alone
  }
  const span = firstObjectSpan(text);
  if (!span || span === text) return undefined;
  try {
    const repaired = parseJsonWithin(jsonrepair(span));
    notes.push('ignored text around the JSON object');
    return repaired;
  } catch {
    return undefined;
  }
}

/** The first `{…}` block with balanced braces, skipping braces inside quoted strings. */
function firstObjectSpan(text: string): string | undefined {
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  let depth = 0;
  let quote: string | null = null;
  for (let index = start; index < text.length; index++) {
    const char = text[index];
    if (quote) {
      if (char === '\\') index++;
      else if (char === quote) quote = null;
      continue;
    }
    if (char === '"' || char === "'") quote = char;
    else if (char === '{') depth++;
    else if (char === '}' && --depth === 0) return text.slice(start, index + 1);
  }
  return text.slice(start);
}
