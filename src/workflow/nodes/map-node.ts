import { type Static, Type } from '@sinclair/typebox';
import { Deadline } from '../../common/deadline';
import { enumOf, freeObject } from '../../json-schema/schema-helpers';
import { emptyUsage } from '../../runs/usage-totals';
import { errorMessage } from '../../shared/error-text';
import { resolveReferences } from '../references';
import { NodeFailure, stopError } from '../execution/run-context';
import { runEach } from './item-scheduler';
import * as nested from './nested-graph';
import type { NestedGraph, NodeHandler, NodeRunInput } from './node-handler';
import { outputObject } from './output-shape';
import { toolNode } from './tool-node';

/** Default and bounds of a map's items and of the items that run at once (MAP_MAX_ITEMS, MAP_MAX_CONCURRENCY). */
export const DEFAULT_MAP_MAX_ITEMS = 1000;
export const DEFAULT_MAP_MAX_CONCURRENCY = 16;
export const DEFAULT_MAP_CONCURRENCY = 4;
const ON_ITEM_ERROR = ['fail', 'skip', 'collect'] as const;

const MapNodeData = Type.Object(
  {
    label: Type.Optional(Type.String()),
    items: Type.Union([Type.String(), Type.Array(Type.Unknown())], {
      description: 'The array to map over: a reference such as {{inputs.cities}}, or a literal array',
    }),
    nodes: Type.Optional(nested.GRAPH_FIELDS.nodes),
    edges: Type.Optional(nested.GRAPH_FIELDS.edges),
    tool: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'Instead of nodes: the one tool called per item' }),
    ),
    arguments: Type.Optional(freeObject({ description: 'Arguments of `tool`; values may reference {{item}}' })),
    concurrency: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 64, default: DEFAULT_MAP_CONCURRENCY, description: 'Items run at once' }),
    ),
    on_item_error: Type.Optional(enumOf(ON_ITEM_ERROR, { default: 'fail' })),
  },
  { additionalProperties: false },
);
type MapNodeData = Static<typeof MapNodeData>;

/** What a resumed map node finds of an earlier execution: the items that ended, with the results of those that succeeded. */
interface MapStep {
  items: Record<string, nested.RunRecord & { result?: unknown }>;
}

const toolGraph = (nodeId: string, data: MapNodeData): NestedGraph => {
  const call = `${nodeId}-item`;
  const field = (name: string) => `{{${call}.${name}}}`;
  return {
    field: 'tool',
    nodes: [
      { id: `${nodeId}-start`, type: 'start', data: {} },
      { id: call, type: 'tool', data: { tool: data.tool ?? '', arguments: data.arguments ?? {} } },
      {
        id: `${nodeId}-end`,
        type: 'end',
        data: {
          outputs: {
            output: field('output'),
            data: field('data'),
            status: field('status'),
            error: field('error'),
          },
        },
      },
    ],
    edges: [
      { source: `${nodeId}-start`, target: call },
      { source: call, target: `${nodeId}-end` },
    ],
  };
};

const itemsOf = (data: MapNodeData, input: NodeRunInput<MapNodeData>, maxItems: number): unknown[] => {
  const items = resolveReferences(data.items, input.scope);
  if (!Array.isArray(items)) {
    const what = items === undefined || items === null ? String(items) : `a ${typeof items}`;
    throw new Error(`items: ${JSON.stringify(data.items)} is ${what}, not an array`);
  }
  if (items.length > maxItems) {
    throw new Error(`items: ${items.length} items, more than the ${maxItems} a map node may run (MAP_MAX_ITEMS)`);
  }
  return items;
};

/**
 * Runs a nested graph (or one tool) once per item of an array, `concurrency` at once, and outputs the results in
 * the items' order. Each item that ends is checkpointed: a resumed run does not run it again. The run's budgets
 * and cancel stop every item; `on_item_error` says what an item's failure does: `fail` the node (the other items
 * are stopped), `skip` it (no result), or `collect` it (null in its place); `errors` lists the failed items.
 */
export const mapNode: NodeHandler<typeof MapNodeData> = {
  data: MapNodeData,
  output: (data, context) =>
    outputObject({
      output: Type.Array(
        data.tool === undefined
          ? nested.resultShape(nested.graphOf(data))
          : Type.Unsafe(toolNode.output({ tool: data.tool }, context)),
        { description: 'The results in the items’ order (see on_item_error)' },
      ),
      errors: Type.Array(outputObject({ index: Type.Integer(), error: Type.String() }), {
        description: 'The items that failed',
      }),
      items: Type.Array(nested.RUN_SHAPE, { description: 'Each item that ended, in order' }),
      count: Type.Integer({ description: 'The number of items' }),
      usage: nested.USAGE_SHAPE,
    }),
  scope: () => ({
    item: Type.Unknown({ description: 'The current item' }),
    item_index: Type.Integer({ description: 'The current item’s index, from 0' }),
  }),
  nested: (data) => nested.graphOf(data),
  toolsUsed: (data) => (data.tool === undefined ? null : { field: 'tool', names: [data.tool] }),
  renameTools: (data, rename) => (data.tool === undefined ? data : { ...data, tool: rename(data.tool) }),
  check: (data) => {
    if ((data.nodes === undefined) === (data.tool === undefined)) {
      return [{ field: 'nodes', message: 'a map node needs either nodes (and edges) or tool, not both' }];
    }
    if (data.tool !== undefined && data.edges !== undefined) {
      return [{ field: 'edges', message: 'edges belong to nodes; a map node with tool has none' }];
    }
    if (data.nodes === undefined && data.arguments === undefined) return [];
    if (data.nodes !== undefined && data.arguments !== undefined) {
      return [{ field: 'arguments', message: 'arguments belong to tool; the nested nodes have their own' }];
    }
    return [];
  },
  async run(input) {
    const { node, data, scope, run, services, step, runGraph } = input;
    const limits = services.nested;
    const items = itemsOf(data, input, limits?.maxItems ?? DEFAULT_MAP_MAX_ITEMS);
    const graph = nested.graphOf(data) ?? toolGraph(node.id, data);
    const concurrency = Math.min(
      data.concurrency ?? DEFAULT_MAP_CONCURRENCY,
      limits?.maxConcurrency ?? DEFAULT_MAP_MAX_CONCURRENCY,
    );
    const onError = data.on_item_error ?? 'fail';
    const state: MapStep = { items: { ...((step?.state as MapStep | undefined)?.items ?? {}) } };
    const pending = items.map((_item, index) => index).filter((index) => state.items[index] === undefined);
    // The items stop together: a cancel or budget of the run, or an item's failure when on_item_error is fail.
    const itemsDeadline = new Deadline({ parent: run.signal });
    let failure: { index: number; message: string } | undefined;

    const runItem = async (index: number): Promise<void> => {
      const started = Date.now();
      const itemScope = { ...scope, item: items[index], item_index: index };
      let record: nested.RunRecord & { result?: unknown };
      try {
        const result = await runGraph(graph, itemScope, {
          ...run,
          signal: itemsDeadline.signal,
          item: nested.itemOf(run.item, node.id, index),
        });
        const usage = nested.usageOfNodes(result.nodes);
        const toolFailed = graph.field === 'tool' && result.outputs.status !== 'success';
        record = toolFailed
          ? { index, status: 'failed', duration_ms: Date.now() - started, usage, error: String(result.outputs.error) }
          : { index, status: 'succeeded', duration_ms: Date.now() - started, usage, result: result.outputs };
      } catch (error) {
        // An item stopped with the others (a cancel, a budget, another item's failure) has not ended: not recorded.
        if (itemsDeadline.signal.aborted) return;
        record = {
          index,
          status: 'failed',
          duration_ms: Date.now() - started,
          usage: emptyUsage(),
          error: errorMessage(error),
        };
      }
      const { result: _result, ...shown } = record;
      run.emit('node.item', { node_id: node.id, ...shown });
      if (record.status === 'failed' && onError === 'fail') {
        failure ??= { index, message: record.error ?? 'failed' };
        itemsDeadline.cancel(new Error(`item ${index} failed`));
        return;
      }
      state.items[index] = record;
      await step?.save(state);
    };

    try {
      await runEach(pending, concurrency, runItem, () => itemsDeadline.signal.aborted);
    } finally {
      itemsDeadline.dispose();
    }
    const output = outputOf(items.length, state, onError);
    if (failure) {
      throw new NodeFailure(`item ${failure.index} failed: ${failure.message}`, output);
    }
    if (run.signal.aborted) throw new NodeFailure(stopError(run.signal).message, output);
    return output;
  },
};

function outputOf(count: number, state: MapStep, onError: (typeof ON_ITEM_ERROR)[number]): Record<string, unknown> {
  const records = Object.values(state.items).sort((a, b) => a.index - b.index);
  const results: unknown[] = [];
  for (const record of records) {
    if (record.status === 'succeeded') results.push(record.result);
    else if (onError === 'collect') results.push(null);
  }
  return {
    output: results,
    errors: records
      .filter((record) => record.status === 'failed')
      .map((record) => ({ index: record.index, error: record.error })),
    items: records.map(({ result: _result, ...shown }) => shown),
    count,
    usage: nested.usageOfRuns(records),
  };
}
