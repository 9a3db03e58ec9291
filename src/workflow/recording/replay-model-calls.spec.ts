import { chatResponse } from '../../../test/factories/chat-response.factory';
import { scriptedProvider } from '../../../test/factories/scripted-provider.factory';
import { maskRequest, type ModelExchange } from '../../llm/model-exchange';
import type { ChatRequest } from '../../llm/provider';
import { ReplayDivergedError, ReplayModelCalls } from './replay-model-calls';

const first: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'Ping 7' }] };
const second: ChatRequest = {
  model: 'm',
  messages: [
    ...first.messages,
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ping', arguments: '{"id":"7"}' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'pong' },
  ],
};
const recording: ModelExchange[] = [
  {
    nodeId: 'llm-1',
    callIndex: 1,
    provider: 'openai',
    model: 'm',
    request: maskRequest(second),
    response: chatResponse({ content: 'pong 7' }),
    durationMs: 5,
  },
  {
    nodeId: 'llm-1',
    callIndex: 0,
    provider: 'openai',
    model: 'm',
    request: maskRequest(first),
    response: chatResponse({ toolCalls: [{ id: 'c1', name: 'ping', arguments: '{"id":"7"}' }] }),
    durationMs: 5,
  },
];

describe(ReplayModelCalls.name, () => {
  const { provider: live } = scriptedProvider([]);

  it('should answer the recorded calls in order without calling the provider, and find no divergence', async () => {
    const sut = new ReplayModelCalls(recording, 'live');
    const provider = sut.provider('llm-1', live);
    const events: string[] = [];

    const answer = await provider.chat(first, { onEvent: (event) => events.push(event.type) });
    const final = await provider.chat(second);

    expect(answer.toolCalls).toEqual([{ id: 'c1', name: 'ping', arguments: '{"id":"7"}' }]);
    expect(events).toEqual(['tool-call-start', 'tool-args-delta']);
    expect(final.content).toBe('pong 7');
    expect(sut.divergence).toBeNull();
  });

  it('should stop at the first request that differs and keep that divergence', async () => {
    const sut = new ReplayModelCalls(recording, 'live');
    const provider = sut.provider('llm-1', live);
    await provider.chat(first);

    const changed = {
      ...second,
      messages: [...second.messages.slice(0, 2), { role: 'tool' as const, tool_call_id: 'c1', content: 'PONG' }],
    };
    await expect(provider.chat(changed)).rejects.toBeInstanceOf(ReplayDivergedError);
    expect(sut.divergence).toMatchObject({
      kind: 'message',
      call_index: 1,
      message_index: 2,
      expected: 'pong',
      actual: 'PONG',
    });
  });

  it('should report a call beyond the recording, and a recorded call the replay did not make', async () => {
    const extra = new ReplayModelCalls(recording, 'live');
    await expect(extra.provider('other', live).chat(first)).rejects.toThrow('which the recording does not have');
    expect(extra.divergence).toMatchObject({ kind: 'extra_call', node_id: 'other', call_index: 0 });

    const fewer = new ReplayModelCalls(recording, 'live');
    await fewer.provider('llm-1', live).chat(first);
    expect(fewer.divergence).toMatchObject({ kind: 'missing_call', node_id: 'llm-1', call_index: 1 });
  });

  it('should give the recorded result of a tool call only when tools are recorded', () => {
    const call = { id: 'c1', name: 'ping', arguments: '{"id":"7"}' };
    expect(new ReplayModelCalls(recording, 'recorded').recordedToolResult('llm-1', call)).toEqual({
      content: 'pong',
      isError: false,
    });
    expect(new ReplayModelCalls(recording, 'live').recordedToolResult('llm-1', call)).toBeUndefined();
  });
});
