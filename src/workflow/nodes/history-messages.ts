import type { ChatMessage } from '../../shared/chat-types';

const ROLES = new Set(['user', 'assistant']);

/**
 * The earlier turns of a conversation (the LLM node's `messages`, e.g. `{{inputs.messages}}`) as chat
 * messages. Only user and assistant text turns are taken: a caller cannot inject system prompts or tool
 * results. Throws a readable error naming the bad entry.
 */
export function historyMessages(value: unknown): ChatMessage[] {
  if (value === undefined || value === null || value === '') return [];
  if (!Array.isArray(value)) throw new Error('messages must resolve to an array of {role, content}');
  return value.map((entry: unknown, index): ChatMessage => {
    const { role, content } = (entry ?? {}) as { role?: unknown; content?: unknown };
    if (typeof role !== 'string' || !ROLES.has(role)) {
      throw new Error(`messages[${index}].role must be "user" or "assistant"`);
    }
    if (typeof content !== 'string') throw new Error(`messages[${index}].content must be a string`);
    return role === 'user' ? { role: 'user', content } : { role: 'assistant', content };
  });
}
