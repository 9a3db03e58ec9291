import type { JsonSchema } from '../shared/tool-types';
import { appendPointer } from './json-pointer';
import { SCHEMA_ARRAY_KEYWORDS, SCHEMA_MAP_KEYWORDS, SCHEMA_VALUED_KEYWORDS } from './schema-keywords';

const isSchemaObject = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Visits every object subschema (root included) with its JSON pointer; boolean schemas are skipped. */
export function walkSchema(schema: unknown, visit: (schema: JsonSchema, pointer: string) => void, pointer = ''): void {
  if (!isSchemaObject(schema)) return;
  visit(schema, pointer);
  for (const keyword of SCHEMA_VALUED_KEYWORDS) walkSchema(schema[keyword], visit, appendPointer(pointer, keyword));
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const map = schema[keyword];
    if (!isSchemaObject(map)) continue;
    for (const [name, child] of Object.entries(map))
      walkSchema(child, visit, appendPointer(appendPointer(pointer, keyword), name));
  }
  for (const keyword of [...SCHEMA_ARRAY_KEYWORDS, 'items']) {
    const list = schema[keyword];
    if (Array.isArray(list))
      list.forEach((child, index) => walkSchema(child, visit, appendPointer(appendPointer(pointer, keyword), index)));
  }
  walkSchema(schema.items, visit, appendPointer(pointer, 'items'));
  const dependencies = schema.dependencies;
  if (isSchemaObject(dependencies)) {
    for (const [name, child] of Object.entries(dependencies)) {
      walkSchema(child, visit, appendPointer(appendPointer(pointer, 'dependencies'), name));
    }
  }
}
