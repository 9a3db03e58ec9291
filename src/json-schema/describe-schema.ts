import type { JsonSchema } from '../shared/tool-types';
import { isRecord } from '../shared/is-record';

const MAX_PROPERTIES = 12;

/** A one-line, TypeScript-like picture of a schema for the model: `{city: string, units?: "C" | "F"}`. */
export function describeSchema(schema: unknown, depth = 2): string {
  if (schema === true || schema === undefined) return 'any value';
  if (schema === false) return 'nothing (not allowed)';
  if (!isRecord(schema)) return 'any value';
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if ('const' in schema) return JSON.stringify(schema.const);
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants)) return variants.map((variant) => describeSchema(variant, depth - 1)).join(' | ');
  if (typeof schema.$ref === 'string') return `see ${schema.$ref}`;

  const types = Array.isArray(schema.type)
    ? schema.type.map(String)
    : typeof schema.type === 'string'
      ? [schema.type]
      : [];
  if (types.length === 0 && isRecord(schema.properties)) types.push('object');
  if (types.length === 0) return 'any value';
  return types.map((type) => describeType(type, schema, depth)).join(' | ');
}

function describeType(type: string, schema: JsonSchema, depth: number): string {
  if (type === 'object') return describeObject(schema, depth);
  if (type === 'array') {
    const items = depth > 0 ? describeSchema(schema.items, depth - 1) : 'any value';
    return withConstraints(`array of ${items.includes(' ') ? `(${items})` : items}`, schema, [
      ['minItems', 'at least', 'items'],
      ['maxItems', 'at most', 'items'],
    ]);
  }
  if (type === 'string') {
    const base = typeof schema.format === 'string' ? `string (${schema.format})` : 'string';
    const matching = typeof schema.pattern === 'string' ? ` matching /${schema.pattern}/` : '';
    return withConstraints(base + matching, schema, [
      ['minLength', 'at least', 'chars'],
      ['maxLength', 'at most', 'chars'],
    ]);
  }
  if (type === 'number' || type === 'integer') {
    return withConstraints(type, schema, [
      ['minimum', '>=', ''],
      ['exclusiveMinimum', '>', ''],
      ['maximum', '<=', ''],
      ['exclusiveMaximum', '<', ''],
      ['multipleOf', 'multiple of', ''],
    ]);
  }
  return type;
}

function describeObject(schema: JsonSchema, depth: number): string {
  if (!isRecord(schema.properties) || depth <= 0) return 'object';
  const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
  const entries = Object.entries(schema.properties);
  const fields = entries
    .slice(0, MAX_PROPERTIES)
    .map(([name, child]) => `${name}${required.includes(name) ? '' : '?'}: ${describeSchema(child, depth - 1)}`);
  if (entries.length > MAX_PROPERTIES) fields.push('…');
  return `{${fields.join(', ')}}`;
}

function withConstraints(base: string, schema: JsonSchema, rules: [string, string, string][]): string {
  const parts = rules
    .filter(([keyword]) => typeof schema[keyword] === 'number')
    .map(([keyword, word, unit]) => `${word} ${String(schema[keyword])}${unit ? ` ${unit}` : ''}`);
  return parts.length > 0 ? `${base}, ${parts.join(', ')}` : base;
}
