import { toTraceEvent } from '../../console/src/lib/run-events';
import { applyEvent } from '../../console/src/lib/run-trace';
import { emptyTrace } from '../../console/src/lib/trace-state';

const at = '2026-12-05T10:00:00.000Z';

describe(toTraceEvent.name, () => {
  it('should read a known event with its data', () => {
    expect(toTraceEvent('tool.call', JSON.stringify({ node_id: 'llm-1', call_id: 'c', name: 'add', at }))).toEqual({
      type: 'tool.call',
      data: { node_id: 'llm-1', call_id: 'c', name: 'add', at },
    });
  });

  it('should skip an event this console does not know, and data that is no JSON object', () => {
    expect(toTraceEvent('node.teleported', JSON.stringify({ at }))).toBeNull();
    expect(toTraceEvent('toString', JSON.stringify({ at }))).toBeNull();
    expect(toTraceEvent('run.started', '[1]')).toBeNull();
    expect(toTraceEvent('run.started', 'not json')).toBeNull();
  });
});

describe(applyEvent.name, () => {
  it('should count usage figures an event leaves out as 0, and a cost with no amount as unknown', () => {
    const state = emptyTrace();
    applyEvent(state, { type: 'node.started', data: { node_id: 'llm-1', node_type: 'llm', at } });
    applyEvent(state, { type: 'llm.usage', data: { node_id: 'llm-1', usage: { total_tokens: 9 }, cost: {}, at } });
    applyEvent(state, { type: 'run.finished', data: { status: 'succeeded', usage: { total_tokens: 9 }, at } });

    const [call] = state.nodes[0].modelCalls;
    expect(call.usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 9 });
    expect(call.cost).toBeNull();
    expect(state.usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 9 });
  });
});
