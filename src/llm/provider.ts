import type { FunctionTool, JsonSchema, ToolCall } from '../shared/tool-types';
import type { ChatMessage, ReasoningPart, TokenUsage } from '../shared/chat-types';

export type ToolChoice = 'auto' | 'required' | 'none' | { name: string };

export const REASONING_EFFORTS = ['low', 'medium', 'high'] as const;
/** How hard a reasoning model thinks; each protocol maps it to its own setting. */
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/**
 * The answer must be JSON matching `schema`; each protocol sends it its own way (Chat Completions
 * `response_format`, Responses `text.format`, Anthropic `output_config.format`, Ollama `format`).
 * `strict` asks OpenAI's protocols for strict mode, which accepts only strict-compatible schemas.
 */
export interface ResponseFormat {
  /** `^[a-zA-Z0-9_-]{1,64}$`, as OpenAI requires. */
  name: string;
  schema: JsonSchema;
  strict: boolean;
}

export interface ChatRequest {
  model: string;
  messages: readonly ChatMessage[];
  tools?: readonly FunctionTool[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  temperature?: number;
  maxTokens?: number;
  reasoningEffort?: ReasoningEffort;
  responseFormat?: ResponseFormat;
}

/** Streamed as the provider answers; names are noun-verb like the run events they feed. */
export type ChatStreamEvent =
  | { type: 'text-delta'; delta: string }
  | { type: 'reasoning-delta'; delta: string }
  | { type: 'tool-call-start'; index: number; id: string; name: string }
  | { type: 'tool-args-delta'; index: number; id: string; delta: string }
  | { type: 'retry'; attempt: number; delayMs: number; reason: string };

/** A call the provider sent that cannot be executed as is (e.g. it never got a name). */
export interface MalformedToolCall {
  id: string;
  arguments: string;
  reason: string;
}

export interface ChatResponse {
  /** Final assistant text (tool-call markup removed when calls were repaired out of it). */
  content: string;
  reasoning: string;
  /** What the assistant turn must carry back for the provider (signatures, encrypted content); opaque. */
  reasoningParts: ReasoningPart[];
  toolCalls: ToolCall[];
  malformedToolCalls: MalformedToolCall[];
  /** How a call was recovered when the model did not emit clean tool_calls. */
  repairs: string[];
  finishReason: string | null;
  usage: TokenUsage;
}

export interface ChatCallOptions {
  signal?: AbortSignal;
  onEvent?: (event: ChatStreamEvent) => void;
}

/** One model endpoint. Implementations stream, retry transient failures and repair tool calls. */
export interface ChatProvider {
  readonly name: string;
  chat(request: ChatRequest, options?: ChatCallOptions): Promise<ChatResponse>;
  /**
   * The output tokens a request asks for as the protocol sends it, when that is more than its `maxTokens`
   * (Anthropic adds the thinking budget); absent or undefined: `maxTokens`.
   */
  outputTokens?(request: Pick<ChatRequest, 'maxTokens' | 'reasoningEffort'>): number | undefined;
}

/** A provider failure that ends the node (after retries, or at once for 400/401/403/404). */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
