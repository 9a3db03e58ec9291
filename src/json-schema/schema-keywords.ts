/** Keywords whose value is one subschema. */
export const SCHEMA_VALUED_KEYWORDS = [
  'additionalProperties',
  'additionalItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
] as const;

/** Keywords whose value maps names to subschemas. */
export const SCHEMA_MAP_KEYWORDS = [
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
] as const;

/** Keywords whose value is an array of subschemas (`items` may be either, depending on the draft). */
export const SCHEMA_ARRAY_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;

/** Every keyword of draft-07 and draft 2020-12 (core, applicator, validation, format, content, meta-data). */
export const JSON_SCHEMA_KEYWORDS: readonly string[] = [
  ...SCHEMA_VALUED_KEYWORDS,
  ...SCHEMA_MAP_KEYWORDS,
  ...SCHEMA_ARRAY_KEYWORDS,
  'items',
  'dependencies',
  '$schema',
  '$id',
  '$ref',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  '$vocabulary',
  '$comment',
  'type',
  'enum',
  'const',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'format',
  'contentEncoding',
  'contentMediaType',
  'title',
  'description',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'examples',
];

/**
 * Non-standard keywords that commonly appear in tool schemas (OpenAPI, hand-written docs).
 * `example` and `x-*` are accepted silently: they only document. The others get a note because
 * their author likely expects an effect that JSON Schema validation does not have.
 */
export const SILENT_ANNOTATIONS: readonly string[] = ['example'];

export const MISLEADING_ANNOTATIONS: Readonly<Record<string, string>> = {
  optional: 'properties are optional unless listed in the parent object\'s "required" array',
  nullable: 'to allow null, add "null" to "type" (e.g. "type": ["string", "null"])',
  discriminator: 'use "oneOf" with a "const" property per branch to constrain variants',
};
