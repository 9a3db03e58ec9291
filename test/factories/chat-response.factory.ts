import type { ChatResponse } from '../../src/llm/provider';

/** A provider answer: plain text and no tool calls unless overridden; 10 + 5 tokens. */
export const chatResponse = (overrides: Partial<ChatResponse> = {}): ChatResponse => ({
  content: '',
  reasoning: '',
  reasoningParts: [],
  toolCalls: [],
  malformedToolCalls: [],
  repairs: [],
  finishReason: 'stop',
  usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
  ...overrides,
});
