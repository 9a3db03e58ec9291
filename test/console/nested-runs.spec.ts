import { nestedRunsOf, nestedRunsTitle } from '../../console/src/lib/nested-runs';
import { applyEvent } from '../../console/src/lib/run-trace';
import type { TraceEvent } from '../../console/src/lib/run-events';
import { emptyTrace } from '../../console/src/lib/trace-state';

const at = (second: number) => `2026-12-01T10:00:0${second}.000Z`;
const fold = (events: TraceEvent[]) => events.reduce(applyEvent, emptyTrace());
const usage = (total: number) => ({
  prompt_tokens: total - 1,
  completion_tokens: 1,
  total_tokens: total,
  model_calls: 1,
});
const item = (index: number, status: 'succeeded' | 'failed', extra: Record<string, unknown> = {}): TraceEvent => ({
  type: 'node.item',
  data: {
    node_id: 'map-1',
    index,
    status,
    duration_ms: 10 * (index + 1),
    usage: usage(5 + index),
    at: at(1),
    ...extra,
  },
});

describe('nestedRunsOf', () => {
  it('should fold node.item events into the map node’s items in index order, whatever order they ended in', () => {
    const state = fold([
      { type: 'node.started', data: { node_id: 'map-1', node_type: 'map', at: at(0) } },
      item(2, 'succeeded'),
      item(0, 'succeeded'),
      item(1, 'failed', { error: 'tool said no' }),
    ]);
    const node = state.nodes[0];

    const list = nestedRunsOf(node.type, node.items, node.output);

    expect(list).toEqual({
      title: 'Items',
      total: null,
      runs: [
        { index: 0, status: 'succeeded', durationMs: 10, totalTokens: 5, error: null },
        { index: 1, status: 'failed', durationMs: 20, totalTokens: 6, error: 'tool said no' },
        { index: 2, status: 'succeeded', durationMs: 30, totalTokens: 7, error: null },
      ],
    });
    expect(nestedRunsTitle(list!)).toBe('Items (3)');
  });

  it('should read a reloaded loop’s iterations from its stored output, with no event', () => {
    const output = {
      output: { n: 2 },
      count: 2,
      stop_reason: 'condition',
      iterations: [
        { index: 0, status: 'succeeded', duration_ms: 4, usage: usage(0) },
        { index: 1, status: 'succeeded', duration_ms: 6, usage: usage(12) },
      ],
    };

    const list = nestedRunsOf('loop', [], output);

    expect(list?.runs.map((run) => [run.index, run.durationMs, run.totalTokens])).toEqual([
      [0, 4, 0],
      [1, 6, 12],
    ]);
    expect(nestedRunsTitle(list!)).toBe('Iterations (2)');
  });

  it('should merge live items with the stored ones, the stored one winning, and say how many of all ended', () => {
    const state = fold([
      { type: 'node.started', data: { node_id: 'map-1', node_type: 'map', at: at(0) } },
      item(0, 'succeeded'),
      item(3, 'succeeded'),
    ]);
    const stored = { count: 5, items: [{ index: 0, status: 'succeeded', duration_ms: 99, usage: usage(1) }] };

    const list = nestedRunsOf('map', state.nodes[0].items, stored);

    expect(list?.runs.map((run) => [run.index, run.durationMs])).toEqual([
      [0, 99],
      [3, 40],
    ]);
    expect(nestedRunsTitle(list!)).toBe('Items (2 of 5)');
  });

  it('should replace an item that ended again after a resume rather than list it twice', () => {
    const state = fold([item(1, 'failed'), item(1, 'succeeded')]);

    expect(state.nodes[0].items).toEqual([
      { index: 1, status: 'succeeded', durationMs: 20, totalTokens: 6, error: null },
    ]);
  });

  it('should list nothing for a node that is neither map nor loop', () => {
    expect(nestedRunsOf('llm', [], { items: [{ index: 0 }] })).toBeNull();
  });
});
