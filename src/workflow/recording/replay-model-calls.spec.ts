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
    item: '',
    callIndex: 1,
    provider: 'openai',
    model: 'm',
    request: maskRequest(second),
    response: chatResponse({ content: 'pong 7' }),
    durationMs: 5,
  },
  {
    nodeId: 'llm-1',
    item: '',
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

  describe('in map items', () => {
    const ask = (item: string): ChatRequest => ({ model: 'm', messages: [{ role: 'user', content: `Ping ${item}` }] });
    const asked = (item: string, recordedItem: string, callIndex: number): ModelExchange => ({
      nodeId: 'ask',
      item: recordedItem,
      callIndex,
      provider: 'openai',
      model: 'm',
      request: maskRequest(ask(item)),
      response: chatResponse({ content: `pong ${item}` }),
      durationMs: 5,
    });

    it('should answer each item with its own recorded calls, whatever order the items call in', async () => {
      const sut = new ReplayModelCalls([asked('a', 'each[0]', 0), asked('b', 'each[1]', 0)], 'live');

      const b = await sut.provider('ask', live, 'each[1]').chat(ask('b'));
      const a = await sut.provider('ask', live, 'each[0]').chat(ask('a'));

      expect([a.content, b.content]).toEqual(['pong a', 'pong b']);
      expect(sut.divergence).toBeNull();
    });

    it('should name the item where a replay diverges, and an item the recording does not have', async () => {
      const sut = new ReplayModelCalls([asked('a', 'each[0]', 0), asked('b', 'each[1]', 0)], 'live');
      await expect(sut.provider('ask', live, 'each[1]').chat(ask('B'))).rejects.toBeInstanceOf(ReplayDivergedError);
      expect(sut.divergence).toMatchObject({ kind: 'message', node_id: 'ask', item: 'each[1]', call_index: 0 });

      const extra = new ReplayModelCalls([asked('a', 'each[0]', 0)], 'live');
      await expect(extra.provider('ask', live, 'each[1]').chat(ask('b'))).rejects.toThrow(
        'node "ask" in each[1] made model call 0',
      );
    });

    it('should answer a recording made before items were kept per node, in call order', async () => {
      const sut = new ReplayModelCalls([asked('a', '', 0), asked('b', '', 1)], 'live');

      const a = await sut.provider('ask', live, 'each[0]').chat(ask('a'));
      const b = await sut.provider('ask', live, 'each[1]').chat(ask('b'));

      expect([a.content, b.content]).toEqual(['pong a', 'pong b']);
      expect(sut.divergence).toBeNull();
    });

    it('should give a tool call the result recorded in its own item, when items reuse a call id', () => {
      const withResult = (item: string): ModelExchange => ({
        ...asked(item, `each[${item === 'a' ? 0 : 1}]`, 1),
        request: maskRequest({
          model: 'm',
          messages: [
            ...ask(item).messages,
            {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'ping', arguments: '{}' } }],
            },
            { role: 'tool', tool_call_id: 'call_0', content: `ping ${item}` },
          ],
        }),
      });
      const sut = new ReplayModelCalls([withResult('a'), withResult('b')], 'recorded');
      const call = { id: 'call_0', name: 'ping', arguments: '{}' };

      expect(sut.recordedToolResult('ask', call, 'each[1]')).toEqual({ content: 'ping b', isError: false });
      expect(sut.recordedToolResult('ask', call, 'each[0]')).toEqual({ content: 'ping a', isError: false });
    });
  });
});
