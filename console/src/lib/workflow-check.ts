import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { FieldProblem } from '../api/types';

type Schema = Record<string, unknown>;

/** What an LLM node's `tools` list holds: tool names, `"*"` (every tool) and `{category}` selectors. */
export type ToolEntry = string | { category: string };

export interface DraftNode {
  id: string;
  type: string;
  data?: Record<string, unknown>;
}
export interface DraftEdge {
  source: string;
  target: string;
  condition?: unknown;
}
export interface DraftDefinition {
  name?: string;
  description?: string;
  inputs?: Schema;
  nodes?: DraftNode[];
  edges?: DraftEdge[];
}

/** Compiles GET /workflows/schema once; the editor validates every keystroke against it. */
export function compileDefinitionSchema(schema: Schema): ValidateFunction {
  return new Ajv({ strict: false, allErrors: true }).compile(schema);
}

const nodeIdAt = (input: DraftDefinition, index: number) => {
  const id = input.nodes?.[index]?.id;
  return typeof id === 'string' ? id : null;
};

/** `/nodes/1/data/prompt` → `definition.nodes[1](llm-1).data.prompt`, the field names the API answers with. */
export function fieldOf(input: DraftDefinition, instancePath: string): string {
  const parts = instancePath.split('/').slice(1);
  const path = parts
    .map((part, position) => {
      if (!/^\d+$/.test(part)) return `.${part}`;
      const id = position === 1 && parts[0] === 'nodes' ? nodeIdAt(input, Number(part)) : null;
      return id === null ? `[${part}]` : `[${part}](${id})`;
    })
    .join('')
    .replace(/^\./, '');
  return `definition${path ? `.${path}` : ''}`;
}

const detailOf = (error: ErrorObject) => {
  if (error.keyword === 'additionalProperties')
    return ` "${(error.params as { additionalProperty: string }).additionalProperty}"`;
  if (error.keyword === 'enum')
    return `: ${(error.params as { allowedValues: unknown[] }).allowedValues.map((value) => JSON.stringify(value)).join(', ')}`;
  return '';
};

export function shapeProblems(validate: ValidateFunction, input: DraftDefinition): FieldProblem[] {
  if (validate(input)) return [];
  return (validate.errors ?? [])
    .filter((error) => error.keyword !== 'if')
    .map((error) => ({
      field: fieldOf(input, error.instancePath),
      message: `${error.message ?? 'is invalid'}${detailOf(error)}`,
    }));
}

/** The node a problem names (`nodes[1](llm-1)…` or `nodes[1]…`), so the editor can pin it there. */
export function nodeOfProblem(problem: FieldProblem, input: DraftDefinition): string | null {
  const match = /nodes\[(\d+)\](?:\(([^)]+)\))?/.exec(problem.field);
  if (match) return match[2] ?? nodeIdAt(input, Number(match[1]));
  const edge = /edges\[(\d+)\]/.exec(problem.field);
  if (edge) return input.edges?.[Number(edge[1])]?.source ?? null;
  const quoted = /node "([^"]+)"/.exec(problem.message);
  return quoted && input.nodes?.some((node) => node.id === quoted[1]) ? quoted[1] : null;
}

/** The `data` schema the published definition schema declares for one node type (its `if type = … then` branch). */
export function nodeDataSchema(schema: Schema, type: string): Schema | null {
  const nodes = (schema.properties as Schema | undefined)?.nodes as Schema | undefined;
  const branches = ((nodes?.items as Schema | undefined)?.allOf ?? []) as Schema[];
  for (const branch of branches) {
    const condition = (
      ((branch.if as Schema | undefined)?.properties as Schema | undefined)?.type as Schema | undefined
    )?.const;
    if (condition === type) return (((branch.then as Schema).properties as Schema).data as Schema) ?? null;
  }
  return null;
}
