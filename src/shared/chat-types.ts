/**
 * The conversation as the engine keeps it: OpenAI Chat Completions message shapes plus what other protocols
 * need to get their own turns back (reasoning parts, failed tool results). Plain JSON, so a run can store it.
 */
export interface AssistantToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * One piece of reasoning as a provider returned it. `data` is the provider's own (a signature, encrypted
 * content, an item id): nothing outside llm/ reads it, and only the protocol that wrote it sends it back.
 */
export interface ReasoningPart {
  protocol: string;
  /** The readable reasoning (empty when the provider sent it only encrypted or redacted). */
  text: string;
  data?: Record<string, string>;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: AssistantToolCall[];
      reasoning_content?: string;
      reasoning_parts?: ReasoningPart[];
    }
  /** `is_error`: the call failed (protocols that can say so tell the model, e.g. Anthropic's `is_error`). */
  | { role: 'tool'; tool_call_id: string; content: string; is_error?: boolean };

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Of `promptTokens`, those read from the provider's prompt cache (when the provider says). */
  cachedPromptTokens?: number;
  /** Of `completionTokens`, the reasoning tokens (when the provider says). */
  reasoningTokens?: number;
}
