import type { JsonSchema } from '../shared/tool-types';
import { walkSchema } from './walk-schema';

/** The keywords OpenAI's strict mode (structured outputs) accepts; any other makes it refuse the schema. */
const STRICT_KEYWORDS = new Set([
  '$schema',
  '$ref',
  '$defs',
  'definitions',
  'type',
  'title',
  'description',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);

/**
 * Why OpenAI's strict mode would refuse this schema, or null when it takes it: the root must be an object,
 * every object must list all its properties in `required` and set `additionalProperties: false`, and only the
 * keywords strict mode knows may appear. Such a schema is sent with `strict: false` instead.
 */
export function strictModeProblem(schema: JsonSchema): string | null {
  if (schema.type !== 'object') return 'the root is not "type": "object"';
  let problem: string | null = null;
  walkSchema(schema, (subschema, pointer) => {
    if (problem !== null) return;
    const at = pointer === '' ? 'the root' : pointer;
    const unknown = Object.keys(subschema).find((keyword) => !STRICT_KEYWORDS.has(keyword));
    if (unknown !== undefined) {
      problem = `${at} uses "${unknown}"`;
      return;
    }
    const isObject =
      subschema.type === 'object' || (Array.isArray(subschema.type) && subschema.type.includes('object'));
    if (!isObject) return;
    if (subschema.additionalProperties !== false) {
      problem = `${at} does not set "additionalProperties": false`;
      return;
    }
    const properties = Object.keys((subschema.properties as JsonSchema | undefined) ?? {});
    const required = new Set(Array.isArray(subschema.required) ? (subschema.required as unknown[]) : []);
    const optional = properties.find((name) => !required.has(name));
    if (optional !== undefined) problem = `${at} does not require "${optional}"`;
  });
  return problem;
}
