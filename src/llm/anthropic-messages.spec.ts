import type { ChatMessage } from '../shared/chat-types';
import { AnthropicStreamReader, anthropicMaxTokens, toAnthropicBody, toAnthropicMessages } from './anthropic-messages';

describe(toAnthropicMessages.name, () => {
  const call = (id: string, args: string) => ({
    id,
    type: 'function' as const,
    function: { name: 'f', arguments: args },
  });

  it('should send the assistant turn with its thinking first, then one user turn of tool_result blocks', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'Hi' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [call('toolu_1', '{"a":1}'), call('toolu_2', 'not json')],
        reasoning_content: 'think',
        reasoning_parts: [
          { protocol: 'anthropic', text: 'think', data: { type: 'thinking', signature: 'sig' } },
          { protocol: 'anthropic', text: '', data: { type: 'redacted_thinking', data: 'xyz' } },
          { protocol: 'openai-responses', text: 'other', data: { encrypted_content: 'enc' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'result 1' },
      { role: 'tool', tool_call_id: 'toolu_2', content: 'bad arguments', is_error: true },
      { role: 'user', content: 'Note' },
    ];

    expect(toAnthropicMessages(messages)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'think', signature: 'sig' },
          { type: 'redacted_thinking', data: 'xyz' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } },
          { type: 'tool_use', id: 'toolu_2', name: 'f', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'result 1' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'bad arguments', is_error: true },
          { type: 'text', text: 'Note' },
        ],
      },
    ]);
  });

  it('should map tool_choice none, auto, required and a named tool', () => {
    const tools = [{ type: 'function' as const, function: { name: 'f', parameters: { type: 'object' } } }];
    const body = (toolChoice: Parameters<typeof toAnthropicBody>[0]['toolChoice']) =>
      toAnthropicBody({ model: 'm', messages: [], tools, toolChoice }).tool_choice;

    expect(body('none')).toEqual({ type: 'none' });
    expect(body('auto')).toEqual({ type: 'auto' });
    expect(body('required')).toEqual({ type: 'any' });
    expect(body({ name: 'f' })).toEqual({ type: 'tool', name: 'f' });
    expect(body(undefined)).toBeUndefined();
    expect(toAnthropicBody({ model: 'm', messages: [], toolChoice: 'required' })).not.toHaveProperty('tool_choice');
  });
});

describe(AnthropicStreamReader.name, () => {
  it('should replace message_start usage with the figures message_delta reports', () => {
    const sut = new AnthropicStreamReader();
    const start = sut.read({
      type: 'message_start',
      message: {
        usage: { input_tokens: 100, output_tokens: 1, cache_read_input_tokens: 20 },
      },
    } as never);
    const delta = sut.read({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 42 },
    } as never);

    // The 20 tokens read from the cache are prompt tokens too, and say so (they are priced apart).
    expect(start.usage).toEqual({ promptTokens: 120, completionTokens: 1, totalTokens: 121, cachedPromptTokens: 20 });
    expect(delta.usage).toEqual({ promptTokens: 120, completionTokens: 42, totalTokens: 162, cachedPromptTokens: 20 });
    expect(delta.finishReason).toBe('stop');
  });
});

describe(anthropicMaxTokens.name, () => {
  it('should give the max_tokens the body is sent with, thinking budget included', () => {
    const request = { model: 'claude-sonnet-4-5', messages: [], maxTokens: 1000, reasoningEffort: 'high' as const };

    expect(anthropicMaxTokens(request)).toBe(toAnthropicBody(request).max_tokens);
    expect(anthropicMaxTokens(request)).toBe(1000 + 16384);
    expect(anthropicMaxTokens({})).toBe(4096);
  });
});
