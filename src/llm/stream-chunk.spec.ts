import { readStreamChunk } from './stream-chunk';

describe(readStreamChunk.name, () => {
  it('should read content, reasoning, tool-call deltas and the finish reason of the first choice', () => {
    const chunk = readStreamChunk({
      choices: [
        {
          index: 0,
          delta: {
            content: 'hi',
            reasoning_content: 'think',
            tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'f', arguments: '{' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
    });

    expect(chunk).toEqual({
      content: 'hi',
      reasoning: 'think',
      toolCalls: [{ index: 0, id: 'c', type: 'function', function: { name: 'f', arguments: '{' } }],
      finishReason: 'tool_calls',
      usage: null,
    });
  });

  it('should read the cached prompt tokens and the reasoning tokens the details name', () => {
    const usage = {
      prompt_tokens: 100,
      completion_tokens: 40,
      total_tokens: 140,
      prompt_tokens_details: { cached_tokens: 64 },
      completion_tokens_details: { reasoning_tokens: 30 },
    };
    expect(readStreamChunk({ choices: [], usage }).usage).toEqual({
      promptTokens: 100,
      completionTokens: 40,
      totalTokens: 140,
      cachedPromptTokens: 64,
      reasoningTokens: 30,
    });
  });

  it('should read usage from a chunk with no choices', () => {
    expect(readStreamChunk({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } }).usage).toEqual({
      promptTokens: 3,
      completionTokens: 2,
      totalTokens: 5,
    });
  });

  it('should tolerate null content, odd field types and garbage', () => {
    const chunk = readStreamChunk({
      choices: [{ delta: { content: null, tool_calls: [{ index: '0', function: { arguments: { a: 1 } } }] } }],
    });

    expect(chunk.content).toBe('');
    expect(chunk.toolCalls).toEqual([{ function: { arguments: '{"a":1}' } }]);
    expect(readStreamChunk('nonsense')).toEqual({
      content: '',
      reasoning: '',
      toolCalls: [],
      finishReason: null,
      usage: null,
    });
  });
});
