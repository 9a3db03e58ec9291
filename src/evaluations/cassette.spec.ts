import { chatResponse } from '../../test/factories/chat-response.factory';
import type { ModelExchange } from '../llm/model-exchange';
import { SECRET_MASK } from '../shared/secrets';
import { checkCassette, exchangesOf, toCassette } from './cassette';

const exchange = (overrides: Partial<ModelExchange> = {}): ModelExchange => ({
  nodeId: 'llm-1',
  item: '',
  callIndex: 0,
  provider: 'openai',
  model: 'm',
  request: {
    model: 'm',
    messages: [
      { role: 'user', content: 'Log in' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'login', arguments: '{"password":"hunter22"}' } }],
      },
    ],
  },
  response: chatResponse({ toolCalls: [{ id: 'c2', name: 'fetch', arguments: '{"api_key":"sk-live-1234"}' }] }),
  durationMs: 12.4,
  ...overrides,
});

describe(toCassette.name, () => {
  const run = { id: 'run-1', workflowId: 'wf-1', workflowVersion: 3 };

  it('should export the exchanges with secrets masked, and import them back as they were exported', () => {
    const cassette = toCassette(run, [exchange()]);
    const text = JSON.stringify(cassette);

    expect(text).not.toMatch(/hunter22|sk-live-1234/);
    expect(cassette).toMatchObject({
      format: 'toolflow-cassette/1',
      run_id: 'run-1',
      workflow_id: 'wf-1',
      workflow_version: 3,
    });
    expect(checkCassette(JSON.parse(text), 'cassette')).toEqual([]);
    const [imported] = exchangesOf(JSON.parse(text));
    expect(imported).toMatchObject({ nodeId: 'llm-1', callIndex: 0, durationMs: 12 });
    expect(imported.response.toolCalls[0].arguments).toBe(`{"api_key":"${SECRET_MASK}"}`);
  });

  it('should mask the secrets of a hand-written cassette on import', () => {
    const written = {
      format: 'toolflow-cassette/1',
      run_id: null,
      workflow_id: null,
      workflow_version: null,
      exchanges: [
        {
          node_id: 'llm-1',
          call_index: 0,
          provider: 'openai',
          model: 'm',
          request: { model: 'm', messages: [{ role: 'user', content: 'https://x.test/?token=abcd1234' }] },
          response: {
            content: 'ok',
            toolCalls: [{ id: 'c', name: 't', arguments: '{"secret":"s3cr3t!"}' }],
            usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
          },
        },
      ],
    };
    expect(checkCassette(written, 'cassette')).toEqual([]);

    const [imported] = exchangesOf(written as never);

    expect(JSON.stringify(imported)).not.toMatch(/abcd1234|s3cr3t!/);
    expect(imported.response).toMatchObject({ content: 'ok', reasoning: '', repairs: [], finishReason: null });
  });

  it("should keep each exchange's map item, and read a cassette made before items as outside any", () => {
    const cassette = toCassette(run, [exchange({ item: 'each[1]' }), exchange({ callIndex: 1 })]);
    expect(cassette.exchanges.map((entry) => entry.item)).toEqual(['each[1]', '']);
    expect(exchangesOf(cassette).map((entry) => entry.item)).toEqual(['each[1]', '']);

    const { item: _item, ...older } = cassette.exchanges[0];
    const before = { ...cassette, exchanges: [older] };
    expect(checkCassette(before, 'cassette')).toEqual([]);
    expect(exchangesOf(before)[0]).toMatchObject({ nodeId: 'llm-1', item: '' });
  });

  it('should name the field of a cassette that is not one', () => {
    expect(checkCassette({ format: 'other', exchanges: [] }, 'cases[0].cassette')).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'cases[0].cassette.format' })]),
    );
  });
});
