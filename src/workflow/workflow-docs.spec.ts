import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKFLOW_DEFINITION_SCHEMA } from './definition.schema';
import type { NodeHandler } from './nodes/node-handler';
import { NODE_HANDLERS, NODE_TYPES } from './nodes/node-handlers';

const ROOT = join(__dirname, '..', '..');
const DOC = readFileSync(join(ROOT, 'docs', 'workflows.md'), 'utf8');

type Schema = { properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[]; oneOf?: Schema[] };

/** Every field path of a schema: `a`, `a.b` for an object's fields, `a[].b` for the fields of a list's items. */
function fieldPaths(schema: Schema, prefix = ''): string[] {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return [...new Set(alternatives.flatMap((alternative) => fieldPaths(alternative, prefix)))];
  if (schema.items) return fieldPaths(schema.items, `${prefix}[]`);
  return Object.entries(schema.properties ?? {}).flatMap(([name, field]) => {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    return [path, ...fieldPaths(field, path)];
  });
}

/** The text of the doc section under `heading`, up to the next heading of the same or a higher level. */
function section(heading: string): string {
  const start = DOC.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/workflows.md has no section "${heading}"`);
  const level = heading.split(' ')[0];
  const rest = DOC.slice(start + heading.length + 2);
  const next = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  return next < 0 ? rest : rest.slice(0, next);
}

/** Table rows of a section: the first cell of each, without backticks. */
const documented = (text: string): string[] => [...text.matchAll(/^\| `([^`]+)` *\|/gm)].map((match) => match[1]);

describe('docs/workflows.md', () => {
  it.each(NODE_TYPES)('should document every data field of the %s node', (type) => {
    const handler = NODE_HANDLERS[type] as NodeHandler;
    const rows = documented(section(`### \`${type}\``));
    const missing = fieldPaths(handler.data as Schema).filter((path) => !rows.includes(path.replace(/\[\]$/, '')));
    expect(missing).toEqual([]);
  });

  it.each(NODE_TYPES)('should document every output field of the %s node', (type) => {
    const handler = NODE_HANDLERS[type] as NodeHandler;
    const shape = handler.output({}, {}) as Schema;
    const text = section(`### \`${type}\``);
    expect(text).toContain('**Output**');
    const rows = documented(text.slice(text.indexOf('**Output**')));
    expect(Object.keys(shape.properties ?? {}).filter((field) => !rows.includes(field))).toEqual([]);
  });

  it('should document every field of the definition, of a node and of an edge', () => {
    const definition = WORKFLOW_DEFINITION_SCHEMA as unknown as Schema;
    const properties = definition.properties ?? {};
    const node = properties.nodes.items as Schema;
    const edge = properties.edges.items as Schema;
    const definitionRows = documented(section('## The definition'));
    const edgeRows = documented(section('## Edges and how a run walks the graph'));
    expect(Object.keys(properties).filter((field) => !definitionRows.includes(field))).toEqual([]);
    expect(Object.keys(node.properties ?? {}).filter((field) => !definitionRows.includes(field))).toEqual([]);
    expect(Object.keys(edge.properties ?? {}).filter((field) => !edgeRows.includes(field))).toEqual([]);
  });

  it('should commit the served JSON Schema as schemas/workflow.schema.json (npm run schema:workflow)', () => {
    const committed: unknown = JSON.parse(readFileSync(join(ROOT, 'schemas', 'workflow.schema.json'), 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(WORKFLOW_DEFINITION_SCHEMA)));
  });
});
