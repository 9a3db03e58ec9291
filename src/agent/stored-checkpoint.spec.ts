import type { AgentLoopCheckpoint, RoundCall } from './loop-checkpoint';
import { toStoredCheckpoint } from './stored-checkpoint';

const SECRET = 'hunter2-secret-value';
const args = JSON.stringify({ user: 'ann', password: SECRET, url: `https://api.example.com/x?token=${SECRET}` });
const maskedArgs = JSON.stringify({
  user: 'ann',
  password: '********',
  url: 'https://api.example.com/x?token=********',
});

const roundCall = (id: string, answered: boolean): RoundCall => ({
  call: { id, name: 'login', arguments: args },
  verdict: 'ok',
  ...(answered ? { answer: { status: 'success', response: 'ok', durationMs: 1 } } : {}),
});

const checkpoint = (): AgentLoopCheckpoint => ({
  messages: [
    { role: 'user', content: 'Log in.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: ['done', 'pending'].map((id) => ({
        id,
        type: 'function',
        function: { name: 'login', arguments: args },
      })),
    },
    { role: 'tool', tool_call_id: 'done', content: 'ok' },
  ],
  toolCalls: [{ id: 'done', name: 'login', arguments: args, status: 'success', response: 'ok', duration_ms: 1 }],
  usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2, modelCalls: 1 },
  iterationsUsed: 1,
  startedToolCalls: 2,
  forcing: false,
  invalidCalls: { streaks: {}, disabled: [] },
  repetition: { lastKey: null, count: 1 },
  round: {
    calls: [roundCall('done', true), roundCall('pending', false)],
    malformed: [{ id: 'bad', arguments: `{"password":"${SECRET}"`, reason: 'not JSON' }],
  },
});

describe(toStoredCheckpoint.name, () => {
  it('should mask the arguments in the history, the call records, answered and malformed calls', () => {
    const sut = toStoredCheckpoint(checkpoint(), () => false);

    expect(JSON.stringify(sut)).not.toContain(SECRET);
    expect(sut.toolCalls[0].arguments).toBe(maskedArgs);
    expect(sut.round?.calls.map((item) => item.call.arguments)).toEqual([maskedArgs, maskedArgs]);
    const assistant = sut.messages[1];
    expect(assistant.role === 'assistant' && assistant.tool_calls?.[0].function.arguments).toBe(maskedArgs);
  });

  it('should keep the arguments of the calls it is told a resumed loop would still execute', () => {
    const sut = toStoredCheckpoint(checkpoint(), (item) => item.answer === undefined);

    expect(sut.round?.calls.map((item) => item.call.arguments)).toEqual([maskedArgs, args]);
    expect(JSON.stringify(sut.messages)).not.toContain(SECRET);
  });

  it('should leave everything else as it was, and the state it was given untouched', () => {
    const state = checkpoint();

    const sut = toStoredCheckpoint(state, () => false);

    expect(sut.messages[0]).toBe(state.messages[0]);
    expect(sut.messages[2]).toBe(state.messages[2]);
    expect({ ...sut, messages: [], toolCalls: [], round: null }).toEqual({
      ...state,
      messages: [],
      toolCalls: [],
      round: null,
    });
    expect(JSON.stringify(state)).toContain(SECRET);
  });
});
