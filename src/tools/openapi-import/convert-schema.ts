import { compileSafePattern } from '../../json-schema/safe-regexp';
import {
  JSON_SCHEMA_KEYWORDS,
  SCHEMA_ARRAY_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  SCHEMA_VALUED_KEYWORDS,
} from '../../json-schema/schema-keywords';
import { isRecord } from '../../shared/is-record';
import type { JsonSchema } from '../../shared/tool-types';

/** Which dialect a schema is written in: 2.0 and 3.0 use the OpenAPI subset, 3.1 is JSON Schema 2020-12. */
export type OpenApiDialect = '2.0' | '3.0' | '3.1';

/** Schema parts an operation could not carry; said once each in the tool's description. */
export type ConversionNotes = Set<string>;

export interface ConvertOptions {
  dialect: OpenApiDialect;
  notes: ConversionNotes;
  /** Subschemas nested deeper than this become open schemas (keeps a tool's parameters small). */
  maxDepth?: number;
}

// `$`-keywords and definition maps make no sense once every `$ref` is resolved.
const KEPT = new Set(
  JSON_SCHEMA_KEYWORDS.filter(
    (keyword) => !keyword.startsWith('$') && keyword !== 'definitions' && keyword !== '$defs',
  ),
);
const VALUED: ReadonlySet<string> = new Set(SCHEMA_VALUED_KEYWORDS);
const MAPS: ReadonlySet<string> = new Set(SCHEMA_MAP_KEYWORDS);
const ARRAYS: ReadonlySet<string> = new Set(SCHEMA_ARRAY_KEYWORDS);

/** Thrown for a schema no JSON tool argument can carry (a 2.0 `file`). */
export class UnsupportedSchemaError extends Error {}

const openSchema = (schema: Record<string, unknown>, why: string): JsonSchema => {
  const type = typeof schema.type === 'string' || Array.isArray(schema.type) ? { type: schema.type } : {};
  const described = typeof schema.description === 'string' ? `${schema.description} ` : '';
  return { ...type, description: `${described}(${why})` };
};

/**
 * Turns one dereferenced OpenAPI schema into a JSON Schema (2020-12) that the service's save check accepts:
 * `nullable` becomes a type union, boolean `exclusiveMinimum`/`exclusiveMaximum` become numbers, `example`,
 * `x-` keys, `discriminator`, `xml` and other non-JSON-Schema keys are dropped, patterns the linear-time
 * engine cannot run are dropped. A schema that contains itself is cut at the first repeat.
 */
export const convertSchema = (schema: unknown, options: ConvertOptions): unknown =>
  convert(schema, options, [], 0, 'the schema');

const convert = (
  schema: unknown,
  options: ConvertOptions,
  ancestors: readonly object[],
  depth: number,
  where: string,
): unknown => {
  if (typeof schema === 'boolean') return schema;
  if (!isRecord(schema)) return {};
  if (ancestors.includes(schema)) {
    options.notes.add(`${where} contains itself; the repeat is not described and accepts any value of its type.`);
    return openSchema({ type: schema.type }, 'recursive: same shape as its parent, not expanded');
  }
  if (options.maxDepth !== undefined && depth > options.maxDepth) {
    options.notes.add(
      `Parts nested deeper than ${options.maxDepth} levels are not described (size limit); they accept any value of their type.`,
    );
    return openSchema(schema, 'not described: nested too deep');
  }
  if (options.dialect === '2.0' && schema.type === 'file') throw new UnsupportedSchemaError('a file upload');
  const path = [...ancestors, schema];
  const child = (value: unknown, name: string) => convert(value, options, path, depth + 1, name);
  const result: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (!KEPT.has(keyword)) continue;
    if (VALUED.has(keyword)) result[keyword] = child(value, where);
    else if (MAPS.has(keyword) && isRecord(value)) {
      result[keyword] = Object.fromEntries(
        Object.entries(value).map(([name, item]) => [
          name,
          child(item, keyword === 'properties' ? `"${name}"` : where),
        ]),
      );
    } else if (ARRAYS.has(keyword) && Array.isArray(value)) {
      result[keyword] = value.map((item) => child(item, where));
    } else if (keyword === 'items') {
      // An array of item schemas is a tuple (older drafts); 2020-12 spells it prefixItems.
      if (Array.isArray(value)) result.prefixItems = value.map((item) => child(item, where));
      else result.items = child(value, where);
    } else if (keyword === 'pattern') {
      if (typeof value === 'string' && compileSafePattern(value).ok) result.pattern = value;
      else options.notes.add(`The pattern of ${where} is not checked (not supported by the pattern engine).`);
    } else {
      result[keyword] = structuredClone(value);
    }
  }
  if (options.dialect !== '3.1') {
    exclusiveBoundToNumber(result, 'exclusiveMinimum', 'minimum');
    exclusiveBoundToNumber(result, 'exclusiveMaximum', 'maximum');
    if (schema.nullable === true) allowNull(result);
    if (options.dialect === '2.0' && schema['x-nullable'] === true) allowNull(result);
  }
  return result;
};

const exclusiveBoundToNumber = (
  schema: JsonSchema,
  keyword: 'exclusiveMinimum' | 'exclusiveMaximum',
  bound: 'minimum' | 'maximum',
) => {
  if (typeof schema[keyword] !== 'boolean') return;
  if (schema[keyword] === true && typeof schema[bound] === 'number') {
    schema[keyword] = schema[bound];
    delete schema[bound];
  } else {
    delete schema[keyword];
  }
};

const allowNull = (schema: JsonSchema) => {
  if (typeof schema.type === 'string') schema.type = [schema.type, 'null'];
  else if (Array.isArray(schema.type) && !schema.type.includes('null'))
    schema.type = [...(schema.type as string[]), 'null'];
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...(schema.enum as unknown[]), null];
};
