import type { ChatMessage } from '../shared/chat-types';
import type { ChatResponse } from '../llm/provider';

/**
 * The assistant turn as it goes into the history: text and well-formed tool calls.
 * Malformed calls stay out (OpenAI rejects an empty function name, and none is invented);
 * returns null when nothing is left to keep.
 */
export const toAssistantMessage = (response: ChatResponse): ChatMessage | null => {
  const toolCalls = response.toolCalls.map((call) => ({
    id: call.id,
    type: 'function' as const,
    function: { name: call.name, arguments: call.arguments },
  }));
  if (toolCalls.length === 0 && response.content === '') return null;
  return {
    role: 'assistant',
    content: response.content === '' ? null : response.content,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    ...(response.reasoning !== '' ? { reasoning_content: response.reasoning } : {}),
    ...(response.reasoningParts.length > 0 ? { reasoning_parts: response.reasoningParts } : {}),
  };
};
