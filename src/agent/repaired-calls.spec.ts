import type { ToolCall } from '../shared/tool-types';
import type { AgentLoopHooks } from './agent-loop-options';
import { announceRepairedCalls } from './repaired-calls';

describe(announceRepairedCalls.name, () => {
  const heard = () => {
    const events: unknown[] = [];
    const hooks: AgentLoopHooks = {
      onToolCall: (event) => events.push(['call', event]),
      onToolParam: (event) => events.push(['param', event]),
    };
    return { events, hooks };
  };
  const recovered: ToolCall = {
    id: 'call_0',
    name: 'lookup',
    arguments: '{"id":"t"}',
    repair: { kind: 'json_answer' },
  };

  it('should announce a call recovered from the text with its repair, then its whole arguments', () => {
    const { events, hooks } = heard();

    const repair = announceRepairedCalls({ toolCalls: [recovered], content: '' }, new Set(), hooks);

    expect(events).toEqual([
      ['call', { id: 'call_0', name: 'lookup', index: 0, repair: { kind: 'json_answer' } }],
      ['param', { id: 'call_0', name: 'lookup', argsDelta: '{"id":"t"}' }],
    ]);
    expect(repair).toEqual({ kind: 'json_answer', callIds: ['call_0'], text: '' });
  });

  it('should not announce a streamed call again, and mark a repaired name without replacing the text', () => {
    const { events, hooks } = heard();
    const renamed: ToolCall = { id: 'c1', name: 'lookup', arguments: '{}', repair: { kind: 'tool_name' } };

    const repair = announceRepairedCalls({ toolCalls: [renamed], content: 'Looking.' }, new Set(['c1']), hooks);

    expect(events).toEqual([]);
    expect(repair).toEqual({ kind: 'tool_name', callIds: ['c1'] });
  });

  it('should say nothing of an answer without repaired calls', () => {
    const { events, hooks } = heard();
    const clean: ToolCall = { id: 'c2', name: 'lookup', arguments: '{}' };

    expect(announceRepairedCalls({ toolCalls: [clean], content: '' }, new Set(['c2']), hooks)).toBeUndefined();
    expect(events).toEqual([]);
  });
});
