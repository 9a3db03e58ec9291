import type { RecordedRequest } from './recorded-request';

/**
 * What each API refuses in a request's structured-output field, with the API's own words, so that the test
 * servers answer a wrong field with the 400 the real API would send instead of a happy answer.
 */
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The subschemas of `schema` that are objects, with where they are (`()` is the root, as OpenAI writes it). */
function objectSchemas(schema: unknown, context = '()'): Array<{ schema: Json; context: string }> {
  if (!isObject(schema)) return [];
  const found: Array<{ schema: Json; context: string }> = [];
  const types = Array.isArray(schema.type) ? (schema.type as unknown[]) : [schema.type];
  if (types.includes('object')) found.push({ schema, context });
  for (const [name, child] of Object.entries(isObject(schema.properties) ? schema.properties : {})) {
    found.push(...objectSchemas(child, `${context === '()' ? '' : `${context}, `}'${name}'`));
  }
  found.push(...objectSchemas(schema.items, `${context}, items`));
  for (const keyword of ['anyOf', 'allOf', 'oneOf']) {
    const list = schema[keyword];
    if (Array.isArray(list))
      list.forEach((child, index) => found.push(...objectSchemas(child, `${context}, ${keyword}[${index}]`)));
  }
  for (const keyword of ['$defs', 'definitions']) {
    const map = schema[keyword];
    if (isObject(map))
      for (const [name, child] of Object.entries(map)) found.push(...objectSchemas(child, `${keyword}.${name}`));
  }
  return found;
}

/** OpenAI's check of a strict schema (Chat Completions and Responses word it alike). */
function openAIStrictError(name: string, schema: unknown): string | null {
  for (const { schema: object, context } of objectSchemas(schema)) {
    const prefix = `Invalid schema for response_format '${name}': In context=${context === '()' ? '()' : `(${context})`}, `;
    if (object.additionalProperties !== false) {
      return `${prefix}'additionalProperties' is required to be supplied and to be false.`;
    }
    const required = Array.isArray(object.required) ? (object.required as unknown[]) : [];
    const missing = Object.keys(isObject(object.properties) ? object.properties : {}).find(
      (key) => !required.includes(key),
    );
    if (missing !== undefined) {
      return `${prefix}'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
    }
  }
  return null;
}

function openAIJsonSchemaError(field: string, format: Json): string | null {
  if (typeof format.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(format.name)) {
    return `Invalid '${field}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`;
  }
  if (!isObject(format.schema)) return `Missing required parameter: '${field}.schema'.`;
  return format.strict === true ? openAIStrictError(format.name, format.schema) : null;
}

/** Chat Completions: `response_format: {type: "json_schema", json_schema: {name, schema, strict}}`. */
export function chatResponseFormatError(request: RecordedRequest): string | null {
  const format = request.body.response_format;
  if (format === undefined) return null;
  if (!isObject(format) || !['text', 'json_object', 'json_schema'].includes(String(format.type))) {
    return "Invalid value for 'response_format.type': expected one of 'text', 'json_object' or 'json_schema'.";
  }
  if (format.type !== 'json_schema') return null;
  if (!isObject(format.json_schema)) return "Missing required parameter: 'response_format.json_schema'.";
  return openAIJsonSchemaError('response_format.json_schema', format.json_schema);
}

/** Responses: `text: {format: {type: "json_schema", name, schema, strict}}`. */
export function responsesTextFormatError(request: RecordedRequest): string | null {
  const text = request.body.text;
  if (text === undefined) return null;
  const format = isObject(text) ? text.format : undefined;
  if (!isObject(format) || !['text', 'json_object', 'json_schema'].includes(String(format.type))) {
    return "Invalid value for 'text.format.type': expected one of 'text', 'json_object' or 'json_schema'.";
  }
  return format.type === 'json_schema' ? openAIJsonSchemaError('text.format', format) : null;
}

/** Anthropic: `output_config: {format: {type: "json_schema", schema}}`, every object closed. */
export function anthropicOutputFormatError(request: RecordedRequest): string | null {
  const config = request.body.output_config;
  if (config === undefined) return null;
  const format = isObject(config) ? config.format : undefined;
  if (format === undefined || format === null) return null;
  if (!isObject(format) || format.type !== 'json_schema')
    return "output_config.format.type: Input should be 'json_schema'";
  if (!isObject(format.schema)) return 'output_config.format.schema: Field required';
  const open = objectSchemas(format.schema).find(({ schema }) => schema.additionalProperties !== false);
  return open === undefined
    ? null
    : "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false";
}

/** Ollama: `format` is "json" or a JSON Schema object. */
export function ollamaFormatError(request: RecordedRequest): string | null {
  const format = request.body.format;
  if (format === undefined || format === 'json' || format === '' || isObject(format)) return null;
  return 'invalid JSON schema in format';
}
