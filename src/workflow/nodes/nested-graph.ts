import { type TSchema, Type } from '@sinclair/typebox';
import type { UsageTotals } from '../../runs/run.entity';
import { addUsage, emptyUsage } from '../../runs/usage-totals';
import { enumOf, freeObject } from '../../json-schema/schema-helpers';
import { isRecord } from '../../shared/is-record';
import type { HandlerEdge, HandlerNode, NestedGraph } from './node-handler';
import { outputObject } from './output-shape';

// What the nodes that run a nested graph (map, loop) share; they import it whole, as `nested`.

/**
 * The `nodes` and `edges` of a graph nested in a node (map, loop). Only their outline is checked here: the
 * definition's check analyzes each nested graph as a workflow of its own (node data, edges, references).
 */
export const GRAPH_FIELDS = {
  nodes: Type.Array(
    Type.Object(
      { id: Type.String(), type: Type.String(), data: Type.Optional(freeObject()) },
      { additionalProperties: true },
    ),
    {
      minItems: 2,
      maxItems: 200,
      description: 'Nodes of the nested graph: one start node, at least one end node (its outputs are the result)',
    },
  ),
  edges: Type.Array(freeObject(), { maxItems: 1000, description: 'Edges between the nested nodes' }),
};

export const graphOf = (data: { nodes?: unknown[]; edges?: unknown[] }): NestedGraph | null =>
  data.nodes === undefined
    ? null
    : { field: 'nodes', nodes: data.nodes as HandlerNode[], edges: (data.edges ?? []) as HandlerEdge[] };

export const USAGE_SHAPE = outputObject({
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
  model_calls: Type.Integer(),
});

/** What a map node's `items` and a loop node's `iterations` list. */
export const RUN_SHAPE = outputObject({
  index: Type.Integer({ description: 'The item’s index, or the iteration’s (from 0)' }),
  status: enumOf(['succeeded', 'failed']),
  duration_ms: Type.Integer(),
  usage: USAGE_SHAPE,
  error: Type.Optional(Type.String({ description: 'Why it failed' })),
});

/**
 * What one run of a nested graph outputs: its end node's `outputs`, whose fields are known when it has one end
 * node that names them; any JSON otherwise.
 */
export function resultShape(graph: NestedGraph | null): TSchema {
  const ends = (graph?.nodes ?? []).filter((node) => node.type === 'end');
  const outputs = (ends[0]?.data as { outputs?: unknown } | undefined)?.outputs;
  if (ends.length !== 1 || !isRecord(outputs)) return Type.Unknown();
  return outputObject(Object.fromEntries(Object.keys(outputs).map((key) => [key, Type.Unknown()])));
}

/** One run of a nested graph (a map item, a loop iteration) as checkpointed and shown: no result, see the node's `output`. */
export interface RunRecord {
  index: number;
  status: 'succeeded' | 'failed';
  duration_ms: number;
  /** Model usage of its nodes. */
  usage: UsageTotals;
  error?: string;
}

/** RunContext.item of a nested graph's run: item (or iteration) `index` of node `nodeId`, inside `outer`. */
export const itemOf = (outer: string | undefined, nodeId: string, index: number): string =>
  `${outer === undefined ? '' : `${outer}/`}${nodeId}[${index}]`;

/** The model usage of a nested graph's nodes (each node's `usage`, where it has one). */
export function usageOfNodes(nodes: Record<string, Record<string, unknown>>): UsageTotals {
  const usage = emptyUsage();
  for (const output of Object.values(nodes)) addUsage(usage, output.usage as Partial<UsageTotals> | undefined);
  return usage;
}

/** The usage of several nested runs added up. */
export function usageOfRuns(records: readonly RunRecord[]): UsageTotals {
  const usage = emptyUsage();
  for (const record of records) addUsage(usage, record.usage);
  return usage;
}
