import type { RunEventType } from '../runs/run-event-types';
import { coalesceDeltas } from './delta-coalescer';

describe(coalesceDeltas.name, () => {
  let emitted: Array<[RunEventType, Record<string, unknown>]>;
  const sut = () => coalesceDeltas((type, data) => emitted.push([type, data]), 50);

  beforeEach(() => {
    emitted = [];
    jest.useFakeTimers();
  });

  afterEach(() => jest.useRealTimers());

  it('should join the argument deltas of one call into one event, emitted before the next other event', () => {
    const { emit } = sut();

    emit('tool.call', { node_id: 'a', call_id: 'c1', name: 't' });
    emit('tool.args.delta', { node_id: 'a', call_id: 'c1', name: 't', delta: '{"id"' });
    emit('tool.args.delta', { node_id: 'a', call_id: 'c1', name: 't', delta: ':"x1"}' });
    expect(emitted).toHaveLength(1);
    emit('tool.call', { node_id: 'a', call_id: 'c2', name: 't' });

    expect(emitted).toEqual([
      ['tool.call', { node_id: 'a', call_id: 'c1', name: 't' }],
      ['tool.args.delta', { node_id: 'a', call_id: 'c1', name: 't', delta: '{"id":"x1"}' }],
      ['tool.call', { node_id: 'a', call_id: 'c2', name: 't' }],
    ]);
  });

  it('should keep the deltas of different calls, nodes and kinds apart, each stream in order', () => {
    const { emit, flush } = sut();

    emit('tool.args.delta', { node_id: 'a', call_id: 'c1', delta: '1' });
    emit('tool.args.delta', { node_id: 'a', call_id: 'c2', delta: '2' });
    emit('tool.args.delta', { node_id: 'a', call_id: 'c2', delta: '3' });
    emit('llm.delta', { node_id: 'a', delta: 'x' });
    emit('llm.reasoning', { node_id: 'a', delta: 'r' });
    emit('llm.delta', { node_id: 'b', delta: 'y' });
    emit('llm.delta', { node_id: 'b', delta: 'z' });
    flush();

    expect(emitted.map(([type, data]) => [type, data.node_id, data.call_id, data.delta])).toEqual([
      ['tool.args.delta', 'a', 'c1', '1'],
      ['tool.args.delta', 'a', 'c2', '23'],
      ['llm.delta', 'a', undefined, 'x'],
      ['llm.reasoning', 'a', undefined, 'r'],
      ['llm.delta', 'b', undefined, 'yz'],
    ]);
  });

  it('should join the pieces of parallel calls that come alternating, one event per call', () => {
    const { emit } = sut();

    for (const piece of ['{"i', 'd":', '1}']) {
      for (const call of ['c1', 'c2']) emit('tool.args.delta', { node_id: 'a', call_id: call, delta: piece });
    }
    emit('llm.usage', { node_id: 'a' });

    expect(emitted).toEqual([
      ['tool.args.delta', { node_id: 'a', call_id: 'c1', delta: '{"id":1}' }],
      ['tool.args.delta', { node_id: 'a', call_id: 'c2', delta: '{"id":1}' }],
      ['llm.usage', { node_id: 'a' }],
    ]);
  });

  it('should emit what it holds once the window has passed, so a live viewer sees a long stream grow', () => {
    const { emit } = sut();

    emit('llm.delta', { node_id: 'a', delta: 'Hel' });
    jest.advanceTimersByTime(49);
    emit('llm.delta', { node_id: 'a', delta: 'lo' });
    expect(emitted).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(emitted).toEqual([['llm.delta', { node_id: 'a', delta: 'Hello' }]]);

    emit('llm.delta', { node_id: 'a', delta: ' world' });
    jest.advanceTimersByTime(50);
    expect(emitted.map(([, data]) => data.delta)).toEqual(['Hello', ' world']);
  });

  it('should emit nothing more on a flush with nothing held, nor after the timer it cleared', () => {
    const { emit, flush } = sut();

    emit('llm.delta', { node_id: 'a', delta: 'x' });
    flush();
    flush();
    jest.advanceTimersByTime(100);

    expect(emitted).toEqual([['llm.delta', { node_id: 'a', delta: 'x' }]]);
  });
});
