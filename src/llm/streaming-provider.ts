import { Deadline } from '../common/deadline';
import type { ChatMessage } from '../shared/chat-types';
import {
  ProviderError,
  type ChatCallOptions,
  type ChatProvider,
  type ChatRequest,
  type ChatResponse,
} from './provider';
import { repairToolCalls } from './repair';
import { RetryableProviderError, withRetry, type RetryOptions } from './retry';
import { StreamedAnswer, type StreamedAnswerResult } from './streamed-answer';

/** What every protocol adapter is built from (one provider entry of the config). */
export interface ProviderOptions {
  /** Registry name, e.g. `openai`, `claude`. */
  name: string;
  /** What the protocol's official SDK takes as its base URL. */
  baseUrl: string;
  /** Omit for servers that want none; no credentials header is sent then. */
  apiKey?: string;
  /** Longest silence tolerated from the provider, before the headers and between events. Default 120 s. */
  timeoutMs?: number;
  /** Longest one `chat` call may take, every attempt and backoff included. Default 180 s. */
  callBudgetMs?: number;
  retry?: RetryOptions;
  /** Clock used to read an HTTP-date Retry-After. */
  now?: () => number;
}

/** One attempt's means: the signal to hand the SDK, the answer to feed, and `heard` for every event received. */
export interface ProviderAttempt {
  signal: AbortSignal;
  answer: StreamedAnswer;
  /** Restarts the silence limit; throws when it passed while the SDK was still handing out buffered events. */
  heard: () => void;
}

/**
 * Why an attempt's signal aborts when the attempt is over: one shared reason, since a DOMException made per call
 * (what `abort()` without a reason makes) captured a stack trace on every model call for no reader.
 */
const ATTEMPT_OVER = new DOMException('the attempt is over', 'AbortError');

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_CALL_BUDGET_MS = 180_000;
/** The SDKs' own timers must never fire before our silence and budget deadlines. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * What the four protocol adapters share: a call budget over all attempts, a silence limit per attempt,
 * retries of transient failures (the SDKs' own retries stay off), and weak-model repair of the calls.
 * A retry after deltas were emitted is announced by a `retry` event, after which consumers must drop the
 * partial text, reasoning and tool calls they hold. Subclasses build the wire body and read one stream.
 */
export abstract class StreamingProvider<Body> implements ChatProvider {
  readonly name: string;
  readonly baseUrl: string;
  readonly #timeoutMs: number;
  readonly #callBudgetMs: number;
  readonly #retry: RetryOptions;
  protected readonly now: (() => number) | undefined;

  constructor(options: ProviderOptions) {
    this.name = options.name;
    this.baseUrl = options.baseUrl;
    this.#callBudgetMs = options.callBudgetMs ?? DEFAULT_CALL_BUDGET_MS;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#retry = options.retry ?? {};
    this.now = options.now;
  }

  toJSON(): { name: string; baseUrl: string } {
    return { name: this.name, baseUrl: this.baseUrl };
  }

  /** The request as this protocol's wire body; built once per call, sent on every attempt. */
  protected abstract toBody(request: ChatRequest): Body;

  /** Sends one request and reads its whole answer into `attempt.answer`. */
  protected abstract stream(body: Body, attempt: ProviderAttempt): Promise<StreamedAnswerResult>;

  /** What the SDK or the network threw, as a ProviderError carrying the provider's own message. */
  protected abstract toProviderError(error: unknown): ProviderError;

  async chat(request: ChatRequest, callOptions: ChatCallOptions = {}): Promise<ChatResponse> {
    const firstGeneratedId = countToolCalls(request.messages);
    const { onEvent, signal } = callOptions;
    const body = this.toBody(request);
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

  /** One request. Its signal is its own and dies with it: SDKs never remove the listeners they add. */
  private async attempt(body: Body, answer: StreamedAnswer, call: Deadline): Promise<StreamedAnswerResult> {
    // Silence that could only end after the budget is the budget's to report.
    const watchSilence = this.#timeoutMs < call.remainingMs;
    const silence = new Deadline({ parent: call.signal, timeoutMs: watchSilence ? this.#timeoutMs : undefined });
    const silenceError = () => new RetryableProviderError(`provider sent nothing for ${this.#timeoutMs} ms`, null);
    const heard = (): void => {
      if (silence.signal.aborted) throw silenceError();
      silence.restart();
    };
    try {
      return await this.stream(body, { signal: silence.signal, answer, heard });
    } catch (error) {
      call.signal.throwIfAborted();
      if (silence.cause === 'timeout') throw silenceError();
      throw this.toProviderError(error);
    } finally {
      // Ends the request if its body is still open; the signal's listeners go with it.
      silence.cancel(ATTEMPT_OVER);
      silence.dispose();
    }
  }
}

/** Generated ids continue after the calls already in the conversation, so they stay unique in it. */
function countToolCalls(messages: readonly ChatMessage[]): number {
  return messages.reduce(
    (count, message) => count + (message.role === 'assistant' ? (message.tool_calls?.length ?? 0) : 0),
    0,
  );
}
