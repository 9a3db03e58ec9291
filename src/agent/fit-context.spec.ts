import type { ChatMessage } from '../shared/chat-types';
import type { FunctionTool } from '../shared/tool-types';
import { countTokens } from '../llm/token-count';
import { ContextFitter, ContextOverflowError } from './fit-context';

jest.mock('../llm/token-count', () => {
  const actual = jest.requireActual<typeof import('../llm/token-count')>('../llm/token-count');
  return { ...actual, countTokens: jest.fn(actual.countTokens) };
});

const words = (count: number, seed: string): string =>
  Array.from({ length: count }, (_, index) => `${seed}${index}`).join(' ');

const call = (id: string): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'lookup', arguments: `{"id":"${id}"}` } }],
});
const result = (id: string, content: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content });

const tool: FunctionTool = {
  type: 'function',
  function: { name: 'lookup', description: 'Looks a record up', parameters: { type: 'object', properties: {} } },
};

/** system, task, then `rounds` call/result turns with results of about 2,000 tokens each. */
const conversation = (rounds: number): ChatMessage[] => [
  { role: 'system', content: 'You look records up.' },
  { role: 'user', content: 'Find the record that mentions the blue whale.' },
  ...Array.from({ length: rounds }, (_, round) => [
    call(`call_${round}`),
    result(`call_${round}`, words(500, `r${round}x`)),
  ]).flat(),
];

/** Every tool result answers a call of an assistant message before it, and every call has its result. */
const expectValidPairing = (messages: readonly ChatMessage[]): void => {
  const open = new Set<string>();
  for (const message of messages) {
    if (message.role === 'assistant') {
      expect(open.size).toBe(0);
      for (const toolCall of message.tool_calls ?? []) open.add(toolCall.id);
    }
    if (message.role === 'tool') {
      expect(open.has(message.tool_call_id)).toBe(true);
      open.delete(message.tool_call_id);
    }
  }
  expect(open.size).toBe(0);
};

describe(ContextFitter.name, () => {
  beforeEach(() => jest.mocked(countTokens).mockClear());

  it('should not count the tokens of a request whose bytes alone fit the window', () => {
    const sut = new ContextFitter({ contextWindow: 100_000, reservedTokens: 4096 });

    const fitted = sut.fit(conversation(3), [tool], 1);

    expect(fitted.trim).toBeNull();
    expect(countTokens).not.toHaveBeenCalled();
  });

  it('should count a request whose bytes could exceed the window, and trim nothing when its tokens fit', () => {
    const messages = conversation(3);
    const bytes = messages.reduce((sum, message) => sum + Buffer.byteLength(JSON.stringify(message)), 0);
    const sut = new ContextFitter({ contextWindow: bytes, reservedTokens: 0 });

    const fitted = sut.fit(messages, [tool], 1);

    expect(countTokens).toHaveBeenCalled();
    expect(fitted.trim).toBeNull();
    expect(fitted.messages).toEqual(messages);
  });

  it('should leave a request that fits untouched', () => {
    const sut = new ContextFitter({ contextWindow: 100_000, reservedTokens: 4096 });
    const messages = conversation(3);

    const fitted = sut.fit(messages, [tool], 1);

    expect(fitted.trim).toBeNull();
    expect(fitted.messages).toEqual(messages);
  });

  it('should shorten older tool results first, oldest first, and keep the latest one whole', () => {
    const sut = new ContextFitter({ contextWindow: 9000, reservedTokens: 1000 });
    const messages = conversation(4);

    const fitted = sut.fit(messages, [tool], 1);

    expect(fitted.trim).toMatchObject({ droppedMessages: 0 });
    expect(fitted.trim?.shortenedResults).toBeGreaterThan(0);
    expect(fitted.trim?.tokensAfter).toBeLessThanOrEqual(8000);
    expect(fitted.trim?.tokensBefore).toBeGreaterThan(8000);
    expect(fitted.messages).toHaveLength(messages.length);
    expect(fitted.messages[3].content).toContain('[Older tool result shortened to fit the context window');
    expect(fitted.messages.at(-1)).toBe(messages.at(-1));
    expectValidPairing(fitted.messages);
  });

  it('should drop whole turns oldest first, keeping system, task and the latest call with its result', () => {
    const sut = new ContextFitter({ contextWindow: 4000, reservedTokens: 1000 });
    const messages = conversation(12);

    const fitted = sut.fit(messages, [tool], 1);

    expect(fitted.trim?.droppedMessages).toBeGreaterThan(0);
    expect(fitted.trim?.droppedMessages).toBe(messages.length - fitted.messages.length);
    expect((fitted.trim?.droppedMessages ?? 1) % 2).toBe(0);
    expect(fitted.messages[0]).toBe(messages[0]);
    expect(fitted.messages[1].content).toContain('Find the record that mentions the blue whale.');
    expect(fitted.messages[1].content).toContain('earlier messages of this conversation were left out');
    expect(fitted.messages.slice(-2)).toEqual(messages.slice(-2));
    expect(fitted.trim?.tokensAfter).toBeLessThanOrEqual(3000);
    expectValidPairing(fitted.messages);
  });

  it('should drop earlier conversation before the task before any turn of the loop', () => {
    const sut = new ContextFitter({ contextWindow: 6000, reservedTokens: 1000 });
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: words(1500, 'old') },
      { role: 'assistant', content: words(1500, 'reply') },
      { role: 'user', content: 'Now find the blue whale.' },
      call('call_1'),
      result('call_1', words(500, 'r')),
    ];

    const fitted = sut.fit(messages, [], 3);

    expect(fitted.trim?.droppedMessages).toBe(2);
    expect(fitted.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(fitted.messages[1].content).toContain('Now find the blue whale.');
  });

  it('should keep the ref of a result that was cut before in its short form', () => {
    const sut = new ContextFitter({ contextWindow: 6000, reservedTokens: 1000 });
    const note = '[Tool result cut to fit 3000 tokens: kept the head. The full result is stored as ref "tr_abc".]';
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Go.' },
      call('call_1'),
      result('call_1', `${words(1400, 'a')}\n${note}`),
      call('call_2'),
      result('call_2', words(1400, 'b')),
      call('call_3'),
      result('call_3', 'small'),
    ];

    const fitted = sut.fit(messages, [], 0);

    expect(fitted.trim?.shortenedResults).toBe(1);
    expect(fitted.messages[2].content).toContain('[Shortened again to fit the context window');
    expect(fitted.messages[2].content).toContain('ref "tr_abc"');
    expect(fitted.messages[4]).toBe(messages[4]);
  });

  it('should fail clearly instead of sending a request whose protected part does not fit', () => {
    const sut = new ContextFitter({ contextWindow: 2000, reservedTokens: 1000 });
    const messages = conversation(1);

    expect(() => sut.fit(messages, [tool], 1)).toThrow(ContextOverflowError);
    expect(() => sut.fit(messages, [tool], 1)).toThrow(/window of 2000 tokens minus 1000 kept for the answer/);
  });
});
