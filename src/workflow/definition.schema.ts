import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { enumOf, freeObject } from '../json-schema/schema-helpers';
import { RUN_BUDGET_PROPERTIES } from '../runs/run-budgets';
import type { JsonSchema } from '../shared/tool-types';
import { NODE_HANDLERS, NODE_TYPES, type NodeHandlers, type NodeType } from './nodes/node-handlers';

type NodeOf<K extends NodeType> = {
  id: string;
  type: K;
  /** Required by the schema when the type's data has required fields. */
  data?: Static<NodeHandlers[K]['data']>;
  position?: Record<string, unknown>;
};
/** One node; its `data` has the shape its handler declares. */
export type WorkflowNode = { [K in NodeType]: NodeOf<K> }[NodeType];

/** Each type's data schema applies when `type` names it; errors then point into `data`, not at every type. */
const dataOf = (type: string, data: TSchema) => {
  const dataRequired = ((data as { required?: string[] }).required ?? []).length > 0;
  return {
    if: { properties: { type: { const: type } }, required: ['type'] },
    then: { ...(dataRequired ? { required: ['data'] } : {}), properties: { data } },
  };
};

const WorkflowNodeSchema = Type.Unsafe<WorkflowNode>(
  Type.Object(
    {
      id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,128}$' }),
      type: enumOf(NODE_TYPES),
      data: Type.Optional(freeObject()),
      position: Type.Optional(freeObject({ description: 'Editor position; ignored by the engine' })),
    },
    {
      additionalProperties: false,
      allOf: NODE_TYPES.map((type) => dataOf(type, NODE_HANDLERS[type].data)),
    },
  ),
);

const WorkflowEdgeSchema = Type.Object(
  {
    id: Type.Optional(Type.String()),
    source: Type.String(),
    target: Type.String(),
    /** On edges leaving a branching (condition) node: the branch that activates the edge. */
    condition: Type.Optional(enumOf(['true', 'false', true, false])),
  },
  { additionalProperties: true },
);
export type WorkflowEdge = Static<typeof WorkflowEdgeSchema>;

/** The published JSON Schema of a workflow definition (GET /api/v1/workflows/schema, OpenAPI). */
export const WORKFLOW_DEFINITION_SCHEMA = Type.Object(
  {
    $schema: Type.Optional(
      Type.String({ description: 'Where editors find this JSON Schema (schemas/workflow.schema.json); ignored' }),
    ),
    name: Type.String({ minLength: 1, maxLength: 128 }),
    description: Type.Optional(Type.String({ maxLength: 4000 })),
    inputs: Type.Optional(
      Type.Unsafe<JsonSchema>({
        type: 'object',
        description: 'JSON Schema (type object) of the run inputs',
        properties: { type: { const: 'object' } },
        additionalProperties: true,
      }),
    ),
    outputs: Type.Optional(
      freeObject({ description: 'Run outputs; values may reference nodes', additionalProperties: true }),
    ),
    nodes: Type.Array(WorkflowNodeSchema, { minItems: 2, maxItems: 500 }),
    edges: Type.Array(WorkflowEdgeSchema, { maxItems: 2000 }),
    ...RUN_BUDGET_PROPERTIES,
  },
  {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://toolflow.dev/schemas/workflow-definition.json',
    title: 'ToolFlow workflow definition',
    additionalProperties: false,
  },
);

/** A workflow as users write it in JSON. */
export type WorkflowDefinition = Static<typeof WORKFLOW_DEFINITION_SCHEMA>;
