import type { TokenUsage } from '../shared/chat-types';
import type { ToolCallDelta } from './tool-call-stream';
import { isRecord } from '../shared/is-record';

/** What one `chat.completion.chunk` contributes, read defensively: compatible servers omit or null any field. */
export interface StreamChunk {
  content: string;
  reasoning: string;
  toolCalls: ToolCallDelta[];
  finishReason: string | null;
  usage: TokenUsage | null;
}

type JsonObject = Record<string, unknown>;

const stringOf = (value: unknown): string => (typeof value === 'string' ? value : '');

const numberOf = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

export function readStreamChunk(value: unknown): StreamChunk {
  const chunk: StreamChunk = { content: '', reasoning: '', toolCalls: [], finishReason: null, usage: null };
  if (!isRecord(value)) return chunk;
  chunk.usage = readUsage(value.usage);

  const choices = Array.isArray(value.choices) ? value.choices.filter(isRecord) : [];
  // We never ask for n > 1, so only the first choice matters.
  const choice = choices.find((candidate) => candidate.index === 0) ?? choices[0];
  if (choice === undefined) return chunk;
  chunk.finishReason = typeof choice.finish_reason === 'string' ? choice.finish_reason : null;
  chunk.usage ??= readUsage(choice.usage);

  const delta = isRecord(choice.delta) ? choice.delta : isRecord(choice.message) ? choice.message : {};
  chunk.content = stringOf(delta.content);
  // DeepSeek and Qwen call it reasoning_content; OpenRouter and Ollama call it reasoning.
  chunk.reasoning = stringOf(delta.reasoning_content) || stringOf(delta.reasoning);
  if (Array.isArray(delta.tool_calls)) chunk.toolCalls = delta.tool_calls.filter(isRecord).map(readToolCallDelta);
  return chunk;
}

/** A whole `chat.completion` read as one chunk; its message lists calls without `index`, so position is index. */
export function readCompletion(value: unknown): StreamChunk {
  const chunk = readStreamChunk(value);
  chunk.toolCalls = chunk.toolCalls.map((call, position) => ({ ...call, index: call.index ?? position }));
  return chunk;
}

function readToolCallDelta(value: JsonObject): ToolCallDelta {
  const delta: ToolCallDelta = {};
  if (typeof value.index === 'number' && Number.isInteger(value.index)) delta.index = value.index;
  if (typeof value.id === 'string') delta.id = value.id;
  if (typeof value.type === 'string') delta.type = value.type;
  if (isRecord(value.function)) {
    const { name, arguments: args } = value.function;
    delta.function = {};
    if (typeof name === 'string') delta.function.name = name;
    // A few servers send arguments as an object instead of a JSON string.
    if (typeof args === 'string') delta.function.arguments = args;
    else if (isRecord(args)) delta.function.arguments = JSON.stringify(args);
  }
  return delta;
}

function readUsage(value: unknown): TokenUsage | null {
  if (!isRecord(value)) return null;
  const promptTokens = numberOf(value.prompt_tokens);
  const completionTokens = numberOf(value.completion_tokens);
  const totalTokens = numberOf(value.total_tokens) || promptTokens + completionTokens;
  const cached = isRecord(value.prompt_tokens_details) ? numberOf(value.prompt_tokens_details.cached_tokens) : 0;
  const reasoning = isRecord(value.completion_tokens_details)
    ? numberOf(value.completion_tokens_details.reasoning_tokens)
    : 0;
  return {
    promptTokens,
    completionTokens,
    totalTokens,
    ...(cached > 0 ? { cachedPromptTokens: cached } : {}),
    ...(reasoning > 0 ? { reasoningTokens: reasoning } : {}),
  };
}
