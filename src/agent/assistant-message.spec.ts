import { chatResponse } from '../../test/factories/chat-response.factory';
import { toAssistantMessage } from './assistant-message';

const response = chatResponse;

describe(toAssistantMessage.name, () => {
  it('should keep the text next to the tool calls in call order', () => {
    const sut = toAssistantMessage(
      response({
        content: 'Let me check.',
        toolCalls: [
          { id: 'a', name: 'search', arguments: '{"q":"x"}' },
          { id: 'b', name: 'fetch', arguments: '{}' },
        ],
      }),
    );
    expect(sut).toEqual({
      role: 'assistant',
      content: 'Let me check.',
      tool_calls: [
        { id: 'a', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } },
        { id: 'b', type: 'function', function: { name: 'fetch', arguments: '{}' } },
      ],
    });
  });

  it('should carry the reasoning parts, signatures included, into the turn that goes back to the provider', () => {
    const parts = [{ protocol: 'anthropic', text: 'Look it up.', data: { type: 'thinking', signature: 'sig-1' } }];
    const sut = toAssistantMessage(
      response({
        reasoning: 'Look it up.',
        reasoningParts: parts,
        toolCalls: [{ id: 'a', name: 'f', arguments: '{}' }],
      }),
    );
    expect(sut).toMatchObject({ reasoning_content: 'Look it up.', reasoning_parts: parts });
  });

  it('should use null content when the model only called tools', () => {
    const sut = toAssistantMessage(response({ toolCalls: [{ id: 'a', name: 'search', arguments: '{}' }] }));
    expect(sut).toMatchObject({ role: 'assistant', content: null });
  });

  it('should leave malformed calls out of the message', () => {
    const sut = toAssistantMessage(
      response({ content: 'Hmm', malformedToolCalls: [{ id: 'x', arguments: '{}', reason: 'no tool name' }] }),
    );
    expect(sut).toEqual({ role: 'assistant', content: 'Hmm' });
  });

  it('should return null when there is neither text nor a well-formed call', () => {
    expect(toAssistantMessage(response({ malformedToolCalls: [{ id: 'x', arguments: '', reason: 'r' }] }))).toBeNull();
  });

  it('should keep the reasoning', () => {
    expect(toAssistantMessage(response({ content: 'A', reasoning: 'because' }))).toEqual({
      role: 'assistant',
      content: 'A',
      reasoning_content: 'because',
    });
  });
});
