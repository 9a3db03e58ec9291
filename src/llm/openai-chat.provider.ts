import OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type { Stream } from 'openai/streaming';
import type { ChatMessage } from '../shared/chat-types';
import { toProviderError } from './openai-error';
import type { ChatCallOptions, ChatProvider, ChatRequest, ChatResponse, ToolChoice } from './provider';
import { repairToolCalls } from './repair';
import { RetryableProviderError, withRetry, type RetryOptions } from './retry';
import { readStreamChunk } from './stream-chunk';
import { StreamedAnswer, type StreamedAnswerResult } from './streamed-answer';

export interface OpenAIChatProviderOptions {
  /** Registry name, e.g. `openai`, `ollama`. */
  name: string;
  /** Up to and including `/v1`, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** Omit for servers that want none; no Authorization header is sent then. */
  apiKey?: string;
  /** Longest silence tolerated from the provider, before the headers and between chunks. Default 120 s. */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** Clock used to read an HTTP-date Retry-After. */
  now?: () => number;
}

export const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * `ChatProvider` for any OpenAI-compatible Chat Completions endpoint. Always streams. Retries transient
 * failures itself (the SDK's retries are off); a retry after deltas were emitted is announced by a
 * `retry` event, after which consumers must drop the partial text, reasoning and tool calls they hold.
 */
export class OpenAIChatProvider implements ChatProvider {
  readonly name: string;
  readonly baseUrl: string;
  // Private fields (#) so neither JSON.stringify nor util.inspect can show the API key the client holds.
  readonly #client: OpenAI;
  readonly #timeoutMs: number;
  readonly #retry: RetryOptions;
  readonly #now: (() => number) | undefined;

  constructor(options: OpenAIChatProviderOptions) {
    this.name = options.name;
    this.baseUrl = options.baseUrl;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#retry = options.retry ?? {};
    this.#now = options.now;
    // Everything is passed explicitly so the SDK falls back on no OPENAI_* environment variable.
    this.#client = new OpenAI({
      baseURL: options.baseUrl,
      apiKey: options.apiKey ?? 'unused',
      adminAPIKey: null,
      organization: null,
      project: null,
      webhookSecret: null,
      defaultHeaders: options.apiKey === undefined ? { Authorization: null } : undefined,
      timeout: this.#timeoutMs,
      maxRetries: 0,
      logLevel: 'off',
    });
  }

  toJSON(): { name: string; baseUrl: string } {
    return { name: this.name, baseUrl: this.baseUrl };
  }

  async chat(request: ChatRequest, callOptions: ChatCallOptions = {}): Promise<ChatResponse> {
    const firstGeneratedId = countToolCalls(request.messages);
    const { onEvent, signal } = callOptions;
    const result = await withRetry(
      () => this.stream(toRequestBody(request), new StreamedAnswer(firstGeneratedId, onEvent), signal),
      { ...this.#retry, signal, onRetry: (retry) => onEvent?.({ type: 'retry', ...retry }) },
    );
    let nextId = firstGeneratedId + result.toolCalls.length + result.malformedToolCalls.length;
    const repaired = repairToolCalls({
      content: result.content,
      toolCalls: result.toolCalls,
      toolNames: request.tools?.map((tool) => tool.function.name) ?? [],
      nextId: () => `call_${nextId++}`,
    });
    return { ...result, ...repaired };
  }

  private async stream(
    body: ChatCompletionCreateParamsStreaming,
    answer: StreamedAnswer,
    callerSignal: AbortSignal | undefined,
  ): Promise<StreamedAnswerResult> {
    const silence = new AbortController();
    let timer = setTimeout(() => silence.abort(), this.#timeoutMs);
    const signal = callerSignal === undefined ? silence.signal : AbortSignal.any([callerSignal, silence.signal]);
    const fail = (error: unknown): never => {
      callerSignal?.throwIfAborted();
      if (silence.signal.aborted) {
        throw new RetryableProviderError(`provider sent nothing for ${this.#timeoutMs} ms`, null);
      }
      throw toProviderError(error, this.#now);
    };

    let stream: Stream<ChatCompletionChunk> | undefined;
    let finished = false;
    try {
      stream = await this.#client.chat.completions.create(body, { signal }).catch(fail);
      const chunks = stream[Symbol.asyncIterator]();
      for (;;) {
        const next = await chunks.next().catch(fail);
        // The SDK ends the iteration quietly when its signal aborts.
        if (signal.aborted) fail(signal.reason);
        if (next.done === true) break;
        clearTimeout(timer);
        timer = setTimeout(() => silence.abort(), this.#timeoutMs);
        answer.add(readStreamChunk(next.value));
      }
      finished = true;
      return answer.finish();
    } finally {
      clearTimeout(timer);
      if (!finished) stream?.controller.abort();
    }
  }
}

function toRequestBody(request: ChatRequest): ChatCompletionCreateParamsStreaming {
  const hasTools = request.tools !== undefined && request.tools.length > 0;
  return {
    model: request.model,
    messages: request.messages.map(toMessageParam),
    stream: true,
    stream_options: { include_usage: true },
    tools: hasTools ? request.tools?.map((tool) => ({ ...tool, function: { ...tool.function } })) : undefined,
    tool_choice: hasTools && request.toolChoice !== undefined ? toToolChoice(request.toolChoice) : undefined,
    // OpenAI rejects parallel_tool_calls when no tools are sent.
    parallel_tool_calls: hasTools ? request.parallelToolCalls : undefined,
    temperature: request.temperature,
    max_tokens: request.maxTokens,
  };
}

function toMessageParam(message: ChatMessage): ChatCompletionCreateParamsStreaming['messages'][number] {
  return { ...message };
}

function toToolChoice(choice: ToolChoice): ChatCompletionToolChoiceOption {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

/** Generated ids continue after the calls already in the conversation, so they stay unique in it. */
function countToolCalls(messages: readonly ChatMessage[]): number {
  return messages.reduce(
    (count, message) => count + (message.role === 'assistant' ? (message.tool_calls?.length ?? 0) : 0),
    0,
  );
}
