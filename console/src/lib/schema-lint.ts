import type { FieldProblem } from '../api/types';

const KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'description',
  'enum',
  'const',
  'default',
  'title',
  'examples',
  'example',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  '$ref',
  '$defs',
  'definitions',
  'nullable',
  'patternProperties',
  'propertyNames',
  'prefixItems',
  'contains',
  'if',
  'then',
  'else',
  '$schema',
  '$id',
  '$comment',
  'readOnly',
  'writeOnly',
  'deprecated',
  'contentMediaType',
  'contentEncoding',
  'dependentRequired',
  'dependentSchemas',
]);
const TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

const distance = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length];
};

const suggest = (word: string) => [...KEYWORDS].find((keyword) => distance(word, keyword) <= 2);

/**
 * Live checks of a tool's parameters schema while it is typed, named with the field paths the API uses
 * (`function_schema.function.parameters.…`). The API stays the judge on save; this catches the usual slips.
 */
export function lintParameters(text: string, base = 'function_schema.function.parameters'): FieldProblem[] {
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    return [{ field: base, message: `is not valid JSON: ${(error as Error).message}` }];
  }
  const problems: FieldProblem[] = [];
  if (!schema || typeof schema !== 'object' || Array.isArray(schema))
    return [{ field: base, message: 'must be an object' }];
  if ((schema as { type?: unknown }).type !== 'object')
    problems.push({ field: `${base}.type`, message: 'must be "object"' });

  const walk = (node: unknown, path: string) => {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return;
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (!KEYWORDS.has(key)) {
        const hint = suggest(key);
        problems.push({
          field: `${path}.${key}`,
          message: `unknown keyword "${key}" is ignored, so it validates nothing${hint ? `; did you mean "${hint}"?` : ''}`,
        });
      }
    }
    const types = Array.isArray(record.type) ? record.type : record.type === undefined ? [] : [record.type];
    for (const type of types) {
      if (typeof type !== 'string' || !TYPES.has(type))
        problems.push({ field: `${path}.type`, message: `unknown type ${JSON.stringify(type)}` });
    }
    const properties = record.properties;
    if (
      properties !== undefined &&
      (typeof properties !== 'object' || properties === null || Array.isArray(properties))
    ) {
      problems.push({ field: `${path}.properties`, message: 'must be an object' });
    } else if (properties) {
      for (const [name, child] of Object.entries(properties)) walk(child, `${path}.properties.${name}`);
    }
    if (record.required !== undefined) {
      if (!Array.isArray(record.required))
        problems.push({ field: `${path}.required`, message: 'must be an array of property names' });
      else {
        record.required.forEach((name, index) => {
          if (typeof name !== 'string' || !properties || !(name in (properties as object))) {
            problems.push({ field: `${path}.required[${index}]`, message: `"${String(name)}" is not in properties` });
          }
        });
      }
    }
    if (record.items) walk(record.items, `${path}.items`);
    for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
      if (Array.isArray(record[keyword]))
        (record[keyword] as unknown[]).forEach((child, index) => walk(child, `${path}.${keyword}[${index}]`));
    }
  };
  walk(schema, base);
  return problems;
}
