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
