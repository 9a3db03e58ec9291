import OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import { Deadline } from '../common/deadline';
import type { ChatMessage } from '../shared/chat-types';
import { parseStreamEvent, readAnswerBody } from './answer-body';
import { toProviderError } from './openai-error';
import {
  ProviderError,
  type ChatCallOptions,
  type ChatProvider,
  type ChatRequest,
  type ChatResponse,
  type ToolChoice,
} from './provider';
import { repairToolCalls } from './repair';
import { RetryableProviderError, withRetry, type RetryOptions } from './retry';
import { readCompletion, readStreamChunk } from './stream-chunk';
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
  /** Longest one `chat` call may take, every attempt and backoff included. Default 180 s. */
  callBudgetMs?: number;
  retry?: RetryOptions;
  /** Clock used to read an HTTP-date Retry-After. */
  now?: () => number;
}

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_CALL_BUDGET_MS = 180_000;
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * `ChatProvider` for any OpenAI-compatible Chat Completions endpoint. Always asks for a stream, and takes
 * a plain `chat.completion` JSON from servers that ignore that. Retries transient failures itself (the
 * SDK's retries are off) within the call budget; a retry after deltas were emitted is announced by a
 * `retry` event, after which consumers must drop the partial text, reasoning and tool calls they hold.
 * A stream that ends with neither a finish_reason nor `[DONE]` was cut off and is retried.
 */
export class OpenAIChatProvider implements ChatProvider {
  readonly name: string;
  readonly baseUrl: string;
  // Private fields (#) so neither JSON.stringify nor util.inspect can show the API key the client holds.
  readonly #client: OpenAI;
  readonly #timeoutMs: number;
  readonly #callBudgetMs: number;
  readonly #retry: RetryOptions;
  readonly #now: (() => number) | undefined;

  constructor(options: OpenAIChatProviderOptions) {
    this.name = options.name;
    this.baseUrl = options.baseUrl;
    this.#callBudgetMs = options.callBudgetMs ?? DEFAULT_CALL_BUDGET_MS;
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
      // Our own silence and budget deadlines govern; the SDK's timer must never fire before them.
      timeout: MAX_TIMER_MS,
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
    const body = toRequestBody(request);
    const call = new Deadline({ parent: signal, timeoutMs: this.#callBudgetMs });
    let attempts = 0;
    let result: StreamedAnswerResult;
    try {
      result = await withRetry(
        () => {
          attempts += 1;
          return this.attempt(body, new StreamedAnswer(firstGeneratedId, onEvent), call);
        },
        { ...this.#retry, signal: call.signal, onRetry: (retry) => onEvent?.({ type: 'retry', ...retry }) },
      );
    } catch (error) {
      if (call.cause !== 'timeout') throw error;
      const tries = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
      throw new ProviderError(`the LLM call budget of ${this.#callBudgetMs} ms ran out after ${tries}`, null, false);
    } finally {
      call.dispose();
    }
    let nextId = firstGeneratedId + result.toolCalls.length + result.malformedToolCalls.length;
    const repaired = repairToolCalls({
      content: result.content,
      toolCalls: result.toolCalls,
      toolNames: request.tools?.map((tool) => tool.function.name) ?? [],
      nextId: () => `call_${nextId++}`,
    });
    return { ...result, ...repaired };
  }

  /** One request. Its signal is its own and dies with it: the SDK never removes the listener it adds. */
  private async attempt(
    body: ChatCompletionCreateParamsStreaming,
    answer: StreamedAnswer,
    call: Deadline,
  ): Promise<StreamedAnswerResult> {
    // Silence that could only end after the budget is the budget's to report.
    const watchSilence = this.#timeoutMs < call.remainingMs;
    const silence = new Deadline({ parent: call.signal, timeoutMs: watchSilence ? this.#timeoutMs : undefined });
    const fail = (error: unknown): never => {
      call.signal.throwIfAborted();
      if (silence.cause === 'timeout') {
        throw new RetryableProviderError(`provider sent nothing for ${this.#timeoutMs} ms`, null);
      }
      throw toProviderError(error, this.#now);
    };

    try {
      const response = await this.#client.chat.completions
        .create(body, { signal: silence.signal })
        .asResponse()
        .catch(fail);
      const content = await readAnswerBody(response).catch(fail);
      if (content.kind === 'completion') {
        answer.add(readCompletion(content.completion));
        return answer.finish();
      }
      const events = content.events[Symbol.asyncIterator]();
      let done = false;
      for (;;) {
        const next = await events.next().catch(fail);
        if (silence.signal.aborted) fail(silence.signal.reason);
        if (next.done === true) break;
        silence.restart();
        if (next.value.data.startsWith('[DONE]')) {
          done = true;
          break;
        }
        answer.add(readStreamChunk(parseStreamEvent(next.value, response.headers)));
      }
      const result = answer.finish();
      if (!done && result.finishReason === null) {
        throw new RetryableProviderError('provider stream ended without finish_reason or [DONE]', null);
      }
      return result;
    } finally {
      // Ends the request if its body is still open; the signal's listeners go with it.
      silence.cancel();
      silence.dispose();
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
