import type { ExchangeRequest } from '../../llm/model-exchange';
import { firstDifference, requestDivergence } from './divergence';

const at = { node_id: 'llm-1', call_index: 1 };

const weather = (cityType = 'string') => ({
  type: 'function' as const,
  function: {
    name: 'weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: cityType } }, required: ['city'] },
  },
});
const ping = { type: 'function' as const, function: { name: 'ping', parameters: { type: 'object' } } };

const request = (overrides: Partial<ExchangeRequest> = {}): ExchangeRequest => ({
  model: 'gpt-test',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Weather in Berlin?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Berlin","days":2}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'c1', content: '{"temp_c":21}' },
  ],
  tools: [weather(), ping],
  toolChoice: 'auto',
  ...overrides,
});

describe(requestDivergence.name, () => {
  it('should find no divergence between equal requests', () => {
    expect(requestDivergence(at, request(), request())).toBeNull();
  });

  it('should name the message and the path where a message differs', () => {
    const replayed = request();
    replayed.messages = replayed.messages.map((message, index) =>
      index === 3 ? { role: 'tool', tool_call_id: 'c1', content: '{"temp_c":25}' } : message,
    );

    expect(requestDivergence(at, request(), replayed)).toEqual({
      ...at,
      kind: 'message',
      message_index: 3,
      path: 'content',
      offset: 11,
      expected: '{"temp_c":21}',
      actual: '{"temp_c":25}',
      description: expect.stringContaining('message 3 (tool) differs at content') as string,
    });
  });

  it('should name the first differing character of a long prompt and quote a short excerpt of each side', () => {
    const before = 'You are a careful assistant. '.repeat(40);
    const after = ' Never guess; say when you do not know. '.repeat(40);
    const recordedPrompt = `${before}Answer in one short sentence.${after}`;
    const replayedPrompt = `${before}Answer in two short sentences.${after}`;
    const replayed = request();
    replayed.messages = replayed.messages.map((message, index) =>
      index === 0 ? { role: 'system', content: replayedPrompt } : message,
    );

    const divergence = requestDivergence(
      at,
      request({ messages: [{ role: 'system', content: recordedPrompt }, ...request().messages.slice(1)] }),
      replayed,
    );

    const offset = before.length + 'Answer in '.length;
    expect(divergence).toMatchObject({ kind: 'message', message_index: 0, path: 'content', offset });
    expect(divergence?.description).toContain(`message 0 (system) differs at content, character ${offset}`);
    expect(divergence?.description).toContain('Answer in one short');
    expect(divergence?.description).toContain('Answer in two short');
    expect(divergence?.description.length).toBeLessThan(300);
  });

  it('should bound the values it quotes that are not strings', () => {
    const big = { type: 'object', properties: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`p${i}`, {}])) };
    const replayed = request({ toolChoice: big as unknown as ExchangeRequest['toolChoice'] });

    const divergence = requestDivergence(at, request(), replayed);

    expect(divergence).toMatchObject({ kind: 'options', path: 'toolChoice', actual: big });
    expect(divergence?.description.length).toBeLessThan(300);
  });

  it('should name a message that is missing from the replay', () => {
    const replayed = request();
    replayed.messages = replayed.messages.slice(0, 2);

    expect(requestDivergence(at, request(), replayed)).toMatchObject({
      kind: 'message',
      message_index: 2,
      actual: undefined,
    });
  });

  it("should name the tool and the argument where a call's arguments differ", () => {
    const replayed = request();
    replayed.messages = replayed.messages.map((message) =>
      message.role === 'assistant'
        ? {
            ...message,
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Bonn","days":2}' } },
            ],
          }
        : message,
    );

    expect(requestDivergence(at, request(), replayed)).toMatchObject({
      kind: 'tool_arguments',
      message_index: 2,
      tool: 'weather',
      path: 'city',
      expected: 'Berlin',
      actual: 'Bonn',
    });
  });

  it('should name the tools missing from and added to the tool list', () => {
    const replayed = request({ tools: [weather(), { ...ping, function: { ...ping.function, name: 'search' } }] });

    const divergence = requestDivergence(at, request(), replayed);

    expect(divergence).toMatchObject({
      kind: 'tools',
      path: 'tools',
      expected: ['weather', 'ping'],
      actual: ['weather', 'search'],
    });
    expect(divergence?.description).toBe(
      'the tool list differs (not offered now: ping; offered now, not then: search)',
    );
  });

  it("should name the tool and the path where a tool's schema differs", () => {
    expect(requestDivergence(at, request(), request({ tools: [weather('integer'), ping] }))).toMatchObject({
      kind: 'tools',
      tool: 'weather',
      path: 'parameters.properties.city.type',
      expected: 'string',
      actual: 'integer',
    });
  });

  it('should report a different model first, and options last', () => {
    expect(requestDivergence(at, request(), request({ model: 'other', tools: [] }))).toMatchObject({
      kind: 'model',
      expected: 'gpt-test',
      actual: 'other',
    });
    expect(requestDivergence(at, request(), request({ toolChoice: 'required' }))).toMatchObject({
      kind: 'options',
      path: 'toolChoice',
      expected: 'auto',
      actual: 'required',
    });
  });
});

describe(firstDifference.name, () => {
  it('should find the first differing path, depth first, in arrays by index', () => {
    expect(firstDifference({ a: [1, { b: 2 }] }, { a: [1, { b: 3 }] })).toEqual({
      path: 'a[1].b',
      expected: 2,
      actual: 3,
    });
    expect(firstDifference({ a: 1 }, { a: 1, b: 2 })).toEqual({ path: 'b', expected: undefined, actual: 2 });
    expect(firstDifference([1], [1])).toBeNull();
  });
});
