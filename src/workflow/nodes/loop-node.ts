import { type Static, Type } from '@sinclair/typebox';
import { enumOf } from '../../json-schema/schema-helpers';
import { errorMessage } from '../../shared/error-text';
import { resolveReferences } from '../references';
import { NodeFailure, stopError } from '../execution/run-context';
import { CONDITION_OPERATORS, evaluateCondition } from './condition-operators';
import * as nested from './nested-graph';
import type { NodeHandler } from './node-handler';
import { outputObject } from './output-shape';

export const MAX_LOOP_ITERATIONS = 1000;

const LoopNodeData = Type.Object(
  {
    label: Type.Optional(Type.String()),
    nodes: nested.GRAPH_FIELDS.nodes,
    edges: nested.GRAPH_FIELDS.edges,
    max_iterations: Type.Integer({
      minimum: 1,
      maximum: MAX_LOOP_ITERATIONS,
      description: 'The loop stops after this many iterations even while its conditions hold',
    }),
    logic: Type.Optional(enumOf(['and', 'or'], { default: 'and' })),
    conditions: Type.Array(
      Type.Object(
        { left: Type.Unknown(), op: enumOf(CONDITION_OPERATORS), right: Type.Optional(Type.Unknown()) },
        { additionalProperties: false },
      ),
      {
        minItems: 1,
        description: 'Checked after each iteration, with {{last}} its outputs: another iteration runs while they hold',
      },
    ),
  },
  { additionalProperties: false },
);
type LoopNodeData = Static<typeof LoopNodeData>;

/** What a resumed loop finds of an earlier execution: the iterations that ended and the outputs of the last one. */
interface LoopStep {
  iterations: nested.RunRecord[];
  last: Record<string, unknown> | null;
  /** Set once the loop decided to stop (the conditions, or max_iterations), before its output was checkpointed. */
  stop_reason?: LoopStopReason;
}

type LoopStopReason = 'condition' | 'max_iterations';

const holds = (data: LoopNodeData, scope: Record<string, unknown>): boolean => {
  const results = data.conditions.map((condition) =>
    evaluateCondition({
      op: condition.op,
      left: resolveReferences(condition.left, scope),
      right: resolveReferences(condition.right, scope),
    }),
  );
  return data.logic === 'or' ? results.some(Boolean) : results.every(Boolean);
};

/**
 * Runs its nested graph again and again: after each iteration its conditions are checked with `{{last}}` the
 * iteration's outputs (the end node's), and another iteration runs while they hold, `max_iterations` at most.
 * Inside, `{{iteration}}` is the iteration's index (from 0) and `{{last}}` the previous one's outputs (null in the
 * first). Each iteration that ends is checkpointed: a resumed run goes on after it. A failing iteration fails the node.
 */
export const loopNode: NodeHandler<typeof LoopNodeData> = {
  data: LoopNodeData,
  output: (data) =>
    outputObject({
      output: nested.resultShape(nested.graphOf(data)),
      count: Type.Integer({ description: 'The iterations that ran' }),
      stop_reason: enumOf(['condition', 'max_iterations'], { description: 'Why the loop stopped' }),
      iterations: Type.Array(nested.RUN_SHAPE, { description: 'Each iteration, in order' }),
      usage: nested.USAGE_SHAPE,
    }),
  scope: (data) => ({
    iteration: Type.Integer({ description: 'The iteration’s index, from 0' }),
    last: Type.Union([nested.resultShape(nested.graphOf(data)), Type.Null()], {
      description: 'The outputs of the iteration before (null in the first)',
    }),
  }),
  nested: (data) => nested.graphOf(data),
  async run({ data, node, scope, run, step, runGraph }) {
    const graph = nested.graphOf(data);
    if (graph === null) throw new Error('a loop node needs nodes');
    const stored = step?.state as LoopStep | undefined;
    const state: LoopStep = { iterations: [...(stored?.iterations ?? [])], last: stored?.last ?? null };
    let stopReason = stored?.stop_reason;
    const output = (): Record<string, unknown> => ({
      output: state.last,
      count: state.iterations.length,
      stop_reason: stopReason ?? null,
      iterations: state.iterations,
      usage: nested.usageOfRuns(state.iterations),
    });
    while (stopReason === undefined) {
      const index = state.iterations.length;
      const started = Date.now();
      const iterationScope = { ...scope, iteration: index, last: state.last };
      try {
        const result = await runGraph(graph, iterationScope, { ...run, item: nested.itemOf(run.item, node.id, index) });
        const record: nested.RunRecord = {
          index,
          status: 'succeeded',
          duration_ms: Date.now() - started,
          usage: nested.usageOfNodes(result.nodes),
        };
        state.iterations.push(record);
        state.last = result.outputs;
        run.emit('node.item', { node_id: node.id, ...record });
      } catch (error) {
        if (run.signal.aborted) throw new NodeFailure(stopError(run.signal).message, output());
        const message = errorMessage(error);
        const record: nested.RunRecord = {
          index,
          status: 'failed',
          duration_ms: Date.now() - started,
          usage: nested.usageOfNodes({}),
          error: message,
        };
        run.emit('node.item', { node_id: node.id, ...record });
        state.iterations.push(record);
        throw new NodeFailure(`iteration ${index} failed: ${message}`, output());
      }
      if (!holds(data, { ...scope, iteration: index, last: state.last })) stopReason = 'condition';
      else if (state.iterations.length >= data.max_iterations) stopReason = 'max_iterations';
      await step?.save({ ...state, ...(stopReason ? { stop_reason: stopReason } : {}) });
    }
    return output();
  },
};
