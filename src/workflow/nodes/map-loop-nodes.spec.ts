import { Type } from '@sinclair/typebox';
import { userPrincipal } from '../../../test/factories/run.factory';
import type { RunEventType } from '../../runs/run-event-types';
import type { WorkflowDefinition, WorkflowNode } from '../definition.schema';
import { type NodeRecorder, WorkflowEngine } from '../execution/engine';
import { graphOrder } from '../graph-order';
import { RunCheckpointer, type RunState } from '../execution/run-checkpointer';
import type { RunContext } from '../execution/run-context';
import type { NodeHandler, NodeServices } from './node-handler';
import { NODE_HANDLERS, type NodeHandlers } from './node-handlers';

/** Every probe run, by the item or iteration it saw; a probe fails for the items named in `fail`. */
let probed: unknown[];
let running: number;
let mostAtOnce: number;
const probe: NodeHandler = {
  data: Type.Any(),
  output: () => Type.Object({ output: Type.String(), usage: Type.Unknown() }),
  async run({ data, scope }) {
    const seen = scope.item ?? scope.iteration;
    probed.push(seen);
    mostAtOnce = Math.max(mostAtOnce, ++running);
    await new Promise((resolve) => setImmediate(resolve));
    running--;
    if (((data as { fail?: unknown[] }).fail ?? []).includes(seen)) throw new Error(`no answer for ${String(seen)}`);
    return { output: `probed ${String(seen)}`, usage: { prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 } };
  },
};
const handlers = { ...NODE_HANDLERS, probe } as unknown as NodeHandlers;

const recorder: NodeRecorder = {
  nodeStarted: () => Promise.resolve('node-run-1'),
  runningNodeRun: () => Promise.resolve(null),
  nodeFinished: () => Promise.resolve(),
  nodeEnded: () => Promise.resolve(),
  hasNodeRun: () => Promise.resolve(false),
};

/** start → probe → end, nested in a map or loop node; the end outputs the probe's output. */
const nested = (probeData: Record<string, unknown> = {}) => ({
  nodes: [
    { id: 'each-start', type: 'start' },
    { id: 'ask', type: 'probe', data: probeData },
    { id: 'each-end', type: 'end', data: { outputs: { answer: '{{ask.output}}', index: '{{item_index}}' } } },
  ],
  edges: [
    { source: 'each-start', target: 'ask' },
    { source: 'ask', target: 'each-end' },
  ],
});

/** start → the node → end, whose outputs are the node's output. */
const around = (inner: Record<string, unknown>): WorkflowDefinition => ({
  name: 'around',
  nodes: [
    { id: 'start', type: 'start' },
    inner as unknown as WorkflowNode,
    { id: 'end', type: 'end', data: { outputs: { result: `{{${String(inner.id)}}}` } } },
  ],
  edges: [
    { source: 'start', target: String(inner.id) },
    { source: String(inner.id), target: 'end' },
  ],
});

describe('map and loop nodes', () => {
  let events: Array<{ type: RunEventType; data: Record<string, unknown> }>;
  let saved: RunState[];
  const services = { nested: { maxItems: 100, maxConcurrency: 3 } } as NodeServices;
  const sut = new WorkflowEngine(handlers, services, recorder);

  beforeEach(() => {
    probed = [];
    running = 0;
    mostAtOnce = 0;
    events = [];
    saved = [];
  });

  const execute = async (definition: WorkflowDefinition, inputs: Record<string, unknown> = {}, state?: RunState) => {
    const checkpoint = new RunCheckpointer(
      'run-1',
      { save: (_runId, stored) => Promise.resolve(void saved.push(structuredClone(stored) as unknown as RunState)) },
      state ?? { nodes: {} },
      state !== undefined,
    );
    const run: RunContext = {
      runId: 'run-1',
      principal: userPrincipal(),
      depth: 0,
      signal: new AbortController().signal,
      emit: (type, data) => events.push({ type, data }),
      checkpoint,
    };
    const { order } = graphOrder(
      definition.nodes.map((node) => node.id),
      definition.edges,
    );
    const result = await sut.run(definition, order, inputs, run);
    return result.outputs.result as Record<string, unknown>;
  };

  describe('map', () => {
    it('should run the nested graph per item and output the results in the items order', async () => {
      const map = { id: 'each', type: 'map', data: { items: '{{inputs.cities}}', concurrency: 2, ...nested() } };
      const output = await execute(around(map), { cities: ['Oslo', 'Rome', 'Lima', 'Pune'] });
      expect(output.output).toEqual([
        { answer: 'probed Oslo', index: 0 },
        { answer: 'probed Rome', index: 1 },
        { answer: 'probed Lima', index: 2 },
        { answer: 'probed Pune', index: 3 },
      ]);
      expect(output.count).toBe(4);
      expect(output.errors).toEqual([]);
      expect((output.items as Array<{ index: number; status: string }>).map((item) => item.status)).toEqual([
        'succeeded',
        'succeeded',
        'succeeded',
        'succeeded',
      ]);
      expect(output.usage).toEqual({ prompt_tokens: 8, completion_tokens: 4, total_tokens: 12, model_calls: 0 });
      expect(mostAtOnce).toBe(2);
      // The nested nodes have no node events of their own; each item has one.
      expect(events.filter((event) => event.type === 'node.started').map((event) => event.data.node_id)).toEqual([
        'start',
        'each',
        'end',
      ]);
      expect(events.filter((event) => event.type === 'node.item')).toHaveLength(4);
    });

    it('should run no more items at once than MAP_MAX_CONCURRENCY allows', async () => {
      const map = { id: 'each', type: 'map', data: { items: [1, 2, 3, 4, 5, 6, 7], concurrency: 10, ...nested() } };
      await execute(around(map));
      expect(mostAtOnce).toBe(3);
    });

    it('should checkpoint each item that ended, and run only the others when the run resumes', async () => {
      const map = { id: 'each', type: 'map', data: { items: ['a', 'b', 'c', 'd'], ...nested() } };
      await execute(around(map));
      const steps = saved.map((state) => state.nodes.each?.step as { items: Record<string, unknown> } | undefined);
      expect(Object.keys(steps.filter(Boolean).at(-1)?.items ?? {})).toEqual(['0', '1', '2', '3']);
      const ended = (index: number) => ({
        index,
        status: 'succeeded',
        duration_ms: 5,
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, model_calls: 0 },
        result: { answer: `stored ${index}` },
      });
      probed = [];

      const output = await execute(
        around(map),
        {},
        { nodes: { each: { step: { items: { 0: ended(0), 2: ended(2) } } } } },
      );
      expect(probed).toEqual(['b', 'd']);
      expect((output.output as Array<{ answer: string }>).map((result) => result.answer)).toEqual([
        'stored 0',
        'probed b',
        'stored 2',
        'probed d',
      ]);
    });

    it('should fail the node with the first failed item when on_item_error is fail', async () => {
      const map = {
        id: 'each',
        type: 'map',
        data: { items: ['a', 'b', 'c'], concurrency: 1, ...nested({ fail: ['b'] }) },
      };
      await expect(execute(around(map))).rejects.toThrow(
        'node "each" (map) failed: item 1 failed: node "ask" (probe) failed: no answer for b',
      );
      expect(probed).toEqual(['a', 'b']);
    });

    it('should leave a failed item out with skip, and keep its place as null with collect', async () => {
      const data = { items: ['a', 'b', 'c'], ...nested({ fail: ['b'] }) };
      const skipped = await execute(around({ id: 'each', type: 'map', data: { ...data, on_item_error: 'skip' } }));
      expect((skipped.output as Array<{ answer: string }>).map((result) => result.answer)).toEqual([
        'probed a',
        'probed c',
      ]);
      expect(skipped.errors).toEqual([{ index: 1, error: 'node "ask" (probe) failed: no answer for b' }]);
      const collected = await execute(around({ id: 'each', type: 'map', data: { ...data, on_item_error: 'collect' } }));
      expect((collected.output as Array<{ answer: string } | null>).map((result) => result?.answer ?? null)).toEqual([
        'probed a',
        null,
        'probed c',
      ]);
      expect(collected.errors).toEqual(skipped.errors);
    });

    it('should refuse more items than MAP_MAX_ITEMS, and items that are not an array', async () => {
      const many = { id: 'each', type: 'map', data: { items: Array.from({ length: 101 }, (_v, i) => i), ...nested() } };
      await expect(execute(around(many))).rejects.toThrow('101 items, more than the 100 a map node may run');
      const text = { id: 'each', type: 'map', data: { items: '{{inputs.city}}', ...nested() } };
      await expect(execute(around(text), { city: 'Oslo' })).rejects.toThrow(
        'items: "{{inputs.city}}" is a string, not an array',
      );
      expect(probed).toEqual([]);
    });
  });

  describe('loop', () => {
    const loop = (conditions: unknown[], maxIterations: number) => ({
      id: 'again',
      type: 'loop',
      data: {
        ...nested(),
        nodes: [
          { id: 'each-start', type: 'start' },
          { id: 'ask', type: 'probe' },
          {
            id: 'each-end',
            type: 'end',
            data: { outputs: { answer: '{{ask.output}}', before: '{{last.answer ?? null}}' } },
          },
        ],
        max_iterations: maxIterations,
        conditions,
      },
    });

    it('should repeat while its conditions hold and output the last iteration', async () => {
      const output = await execute(
        around(loop([{ left: '{{last.answer}}', op: 'not_equals', right: 'probed 2' }], 10)),
      );
      expect(probed).toEqual([0, 1, 2]);
      expect(output).toMatchObject({
        output: { answer: 'probed 2', before: 'probed 1' },
        count: 3,
        stop_reason: 'condition',
      });
      expect(output.usage).toMatchObject({ total_tokens: 9 });
    });

    it('should stop at max_iterations while its conditions still hold', async () => {
      const output = await execute(around(loop([{ left: '{{iteration}}', op: 'less_than', right: 100 }], 4)));
      expect(probed).toEqual([0, 1, 2, 3]);
      expect(output).toMatchObject({ count: 4, stop_reason: 'max_iterations', output: { answer: 'probed 3' } });
    });

    it('should go on after the last checkpointed iteration when the run resumes', async () => {
      const definition = around(loop([{ left: '{{iteration}}', op: 'less_than', right: 100 }], 4));
      await execute(definition);
      const step = saved
        .map((state) => state.nodes.again?.step as { iterations: unknown[] } | undefined)
        .find((candidate) => candidate?.iterations.length === 2);
      probed = [];
      const output = await execute(definition, {}, { nodes: { again: { step } } });
      expect(probed).toEqual([2, 3]);
      expect(output).toMatchObject({ count: 4, output: { answer: 'probed 3', before: 'probed 2' } });
    });
  });
});
