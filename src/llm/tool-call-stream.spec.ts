import { ToolCallStream, type ToolCallDelta, type ToolCallStreamEvent } from './tool-call-stream';

describe(ToolCallStream.name, () => {
  const run = (deltas: ToolCallDelta[], firstGeneratedId = 0) => {
    const sut = new ToolCallStream(firstGeneratedId);
    const events: ToolCallStreamEvent[] = deltas.flatMap((delta) => sut.push(delta));
    return { events, ...sut.finish() };
  };

  const fragments = (index: number, args: string[]): ToolCallDelta[] =>
    args.map((piece) => ({ index, function: { arguments: piece } }));

  it('should assemble a standard call from an opening chunk and argument fragments', () => {
    const { events, toolCalls } = run([
      { index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } },
      ...fragments(0, ['{"ci', 'ty":"Pa', 'ris"}']),
    ]);

    expect(toolCalls).toEqual([{ id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' }]);
    expect(events).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'get_weather' },
      { type: 'tool-args-delta', index: 0, id: 'call_a', delta: '{"ci' },
      { type: 'tool-args-delta', index: 0, id: 'call_a', delta: 'ty":"Pa' },
      { type: 'tool-args-delta', index: 0, id: 'call_a', delta: 'ris"}' },
    ]);
  });

  it('should accept a whole call in one chunk', () => {
    const { events, toolCalls } = run([{ index: 0, id: 'c', function: { name: 'f', arguments: '{"a":1}' } }]);

    expect(toolCalls).toEqual([{ id: 'c', name: 'f', arguments: '{"a":1}' }]);
    expect(events).toEqual([
      { type: 'tool-call-start', index: 0, id: 'c', name: 'f' },
      { type: 'tool-args-delta', index: 0, id: 'c', delta: '{"a":1}' },
    ]);
  });

  it('should never let an empty id or name overwrite the real ones', () => {
    const { toolCalls } = run([
      { index: 0, id: 'c', type: 'function', function: { name: 'f', arguments: '' } },
      { index: 0, id: '', type: 'function', function: { name: '', arguments: '{"a"' } },
      { index: 0, id: '', type: 'function', function: { name: '', arguments: ':1}' } },
    ]);

    expect(toolCalls).toEqual([{ id: 'c', name: 'f', arguments: '{"a":1}' }]);
  });

  it('should treat chunks without index as continuing the last call unless they carry a new id', () => {
    const { toolCalls, events } = run([
      { id: 'c1', function: { name: 'a', arguments: '{"x":' } },
      { function: { arguments: '1}' } },
      { id: 'c2', function: { name: 'b', arguments: '' } },
      { id: 'c2', function: { arguments: '{}' } },
    ]);

    expect(toolCalls).toEqual([
      { id: 'c1', name: 'a', arguments: '{"x":1}' },
      { id: 'c2', name: 'b', arguments: '{}' },
    ]);
    expect(events.filter((event) => event.type === 'tool-call-start').map((event) => event.index)).toEqual([0, 1]);
  });

  it('should report positions from 0 when the provider index starts at 1', () => {
    const { events, toolCalls } = run([
      { index: 1, id: 'c', function: { name: 'f', arguments: '' } },
      ...fragments(1, ['{}']),
    ]);

    expect(toolCalls).toEqual([{ id: 'c', name: 'f', arguments: '{}' }]);
    expect(events.map((event) => event.index)).toEqual([0, 0]);
  });

  it('should accept chunks without a type', () => {
    expect(run([{ index: 0, id: 'c', function: { name: 'f', arguments: '{}' } }]).toolCalls).toHaveLength(1);
  });

  it('should start a call only once its name arrives and replay the arguments buffered until then', () => {
    const { events, toolCalls } = run([
      { index: 0, id: 'c', function: { arguments: '' } },
      { index: 0, function: { arguments: '{"a"' } },
      { index: 0, function: { name: 'f', arguments: ':1' } },
      { index: 0, function: { arguments: '}' } },
    ]);

    expect(toolCalls).toEqual([{ id: 'c', name: 'f', arguments: '{"a":1}' }]);
    expect(events).toEqual([
      { type: 'tool-call-start', index: 0, id: 'c', name: 'f' },
      { type: 'tool-args-delta', index: 0, id: 'c', delta: '{"a":1' },
      { type: 'tool-args-delta', index: 0, id: 'c', delta: '}' },
    ]);
  });

  it('should keep interleaved parallel calls apart by index', () => {
    const { toolCalls } = run([
      { index: 0, id: 'a', function: { name: 'fa', arguments: '' } },
      { index: 1, id: 'b', function: { name: 'fb', arguments: '' } },
      ...fragments(0, ['{"x"']),
      ...fragments(1, ['{"y"']),
      ...fragments(0, [':1}']),
      ...fragments(1, [':2}']),
    ]);

    expect(toolCalls).toEqual([
      { id: 'a', name: 'fa', arguments: '{"x":1}' },
      { id: 'b', name: 'fb', arguments: '{"y":2}' },
    ]);
  });

  it('should concatenate the halves of a surrogate pair split across fragments', () => {
    const { toolCalls } = run([
      { index: 0, id: 'c', function: { name: 'f', arguments: '{"e":"\ud83d' } },
      ...fragments(0, ['\ude00"}']),
    ]);

    expect(toolCalls[0].arguments).toBe('{"e":"😀"}');
    expect(JSON.parse(toolCalls[0].arguments)).toEqual({ e: '😀' });
  });

  it('should generate call_<n> ids from the given offset for calls that have none', () => {
    const { toolCalls, events } = run(
      [
        { index: 0, function: { name: 'a', arguments: '{}' } },
        { index: 1, function: { name: 'b', arguments: '{}' } },
      ],
      4,
    );

    expect(toolCalls.map((call) => call.id)).toEqual(['call_4', 'call_5']);
    expect(events[0]).toEqual({ type: 'tool-call-start', index: 0, id: 'call_4', name: 'a' });
  });

  it('should report a call that never receives a name as malformed without emitting it', () => {
    const { toolCalls, malformedToolCalls, events } = run([
      { index: 0, id: 'c', function: { arguments: '{"a":' } },
      ...fragments(0, ['1}']),
    ]);

    expect(toolCalls).toEqual([]);
    expect(events).toEqual([]);
    expect(malformedToolCalls).toEqual([
      { id: 'c', arguments: '{"a":1}', reason: 'the provider sent a tool call without a function name' },
    ]);
  });

  it('should split calls that reuse one index but carry distinct ids', () => {
    const { toolCalls } = run([
      { index: 0, id: 'a', function: { name: 'f', arguments: '{"n":1}' } },
      { index: 0, id: 'b', function: { name: 'f', arguments: '{"n":2}' } },
    ]);

    expect(toolCalls).toEqual([
      { id: 'a', name: 'f', arguments: '{"n":1}' },
      { id: 'b', name: 'f', arguments: '{"n":2}' },
    ]);
  });

  it('should return nothing when no delta was pushed', () => {
    expect(run([])).toEqual({ events: [], toolCalls: [], malformedToolCalls: [] });
  });
});
