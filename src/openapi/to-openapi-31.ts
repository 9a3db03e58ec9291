import type { OpenAPIObject } from '@nestjs/swagger';

/** Nest's decorators write OpenAPI 3.0 `nullable: true`; 3.1 (JSON Schema) says `type: [T, "null"]`. */
function convert(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(convert);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  if (schema.nullable === true) {
    delete schema.nullable;
    if (typeof schema.type === 'string') schema.type = [schema.type, 'null'];
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...(schema.enum as unknown[]), null];
  } else if (schema.nullable === false) {
    delete schema.nullable;
  }
  Object.values(schema).forEach(convert);
}

export function toOpenApi31(document: OpenAPIObject): OpenAPIObject {
  convert(document.paths);
  convert(document.components);
  return document;
}
