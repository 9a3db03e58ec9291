import { chatResponse } from '../../../test/factories/chat-response.factory';
import { scriptedProvider } from '../../../test/factories/scripted-provider.factory';
import { exchangeKey, type ModelExchange } from '../../llm/model-exchange';
import { SECRET_MASK } from '../../shared/secrets';
import { RecordingModelCalls } from './recording-model-calls';

describe(RecordingModelCalls.name, () => {
  const recorder = (callsBefore?: ReadonlyMap<string, number>) => {
    const stored: ModelExchange[] = [];
    const errors: unknown[] = [];
    const sut = new RecordingModelCalls(
      (exchange) => {
        stored.push(exchange);
        return Promise.resolve();
      },
      (error) => errors.push(error),
      callsBefore,
    );
    return { sut, stored, errors };
  };

  it('should record each answered call as sent and as answered, numbered per node', async () => {
    const { sut, stored } = recorder();
    const { provider } = scriptedProvider([{ content: 'one' }, { content: 'two' }, { content: 'three' }]);
    const first = sut.provider('a', provider);
    const second = sut.provider('b', provider);
    await first.chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    await second.chat({ model: 'm', messages: [{ role: 'user', content: 'hello' }] });
    await first.chat({ model: 'm', messages: [{ role: 'user', content: 'again' }] });
    await sut.flush();

    expect(
      stored.map(({ nodeId, callIndex, provider: name, response }) => [nodeId, callIndex, name, response.content]),
    ).toEqual([
      ['a', 0, 'scripted', 'one'],
      ['b', 0, 'scripted', 'two'],
      ['a', 1, 'scripted', 'three'],
    ]);
    expect(stored[1].request.messages).toEqual([{ role: 'user', content: 'hello' }]);
  });

  it('should mask credentials in the arguments of tool calls sent and answered, and in URLs sent as messages', async () => {
    const { sut, stored } = recorder();
    const answer = chatResponse({
      toolCalls: [{ id: 'c2', name: 'login', arguments: '{"user":"ann","password":"hunter22"}' }],
    });
    const { provider } = scriptedProvider([answer]);
    await sut.provider('a', provider).chat({
      model: 'm',
      messages: [
        { role: 'user', content: 'https://example.test/x?api_key=abcd1234' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'fetch', arguments: '{"token":"s3cr3t-value"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      ],
    });
    await sut.flush();

    const [exchange] = stored;
    expect(JSON.stringify(exchange)).not.toMatch(/hunter22|s3cr3t-value|abcd1234/);
    expect(exchange.request.messages[1]).toMatchObject({
      tool_calls: [{ function: { arguments: `{"token":"${SECRET_MASK}"}` } }],
    });
    expect(exchange.response.toolCalls[0].arguments).toBe(`{"user":"ann","password":"${SECRET_MASK}"}`);
  });

  it("should number the calls of a node per map item, and keep each call's item", async () => {
    const { sut, stored } = recorder(new Map([[exchangeKey('ask', 'each[1]'), 1]]));
    const { provider } = scriptedProvider([{ content: 'b' }, { content: 'a' }, { content: 'a again' }]);
    await sut.provider('ask', provider, 'each[1]').chat({ model: 'm', messages: [] });
    await sut.provider('ask', provider, 'each[0]').chat({ model: 'm', messages: [] });
    await sut.provider('ask', provider, 'each[0]').chat({ model: 'm', messages: [] });
    await sut.flush();

    expect(stored.map(({ item, callIndex, response }) => [item, callIndex, response.content])).toEqual([
      ['each[1]', 1, 'b'],
      ['each[0]', 0, 'a'],
      ['each[0]', 1, 'a again'],
    ]);
  });

  it('should number a resumed node on from the calls it recorded before', async () => {
    const { sut, stored } = recorder(new Map([['a', 2]]));
    const { provider } = scriptedProvider([{ content: 'three' }]);
    await sut.provider('a', provider).chat({ model: 'm', messages: [] });
    await sut.flush();

    expect(stored[0].callIndex).toBe(2);
  });

  it('should not record a call that failed, and report a failed write without failing the call', async () => {
    const errors: unknown[] = [];
    const sut = new RecordingModelCalls(
      () => Promise.reject(new Error('db down')),
      (error) => errors.push(error),
    );
    const { provider } = scriptedProvider([{ content: 'ok' }]);
    const wrapped = sut.provider('a', provider);

    await expect(wrapped.chat({ model: 'm', messages: [] })).resolves.toMatchObject({ content: 'ok' });
    await expect(wrapped.chat({ model: 'm', messages: [] })).rejects.toThrow('script exhausted');
    await sut.flush();
    expect(errors).toEqual([new Error('db down')]);
  });
});
