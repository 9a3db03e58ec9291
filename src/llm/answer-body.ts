import OpenAI from 'openai';
import type { ServerSentEvent } from 'openai/core/streaming';
import { toProviderError } from './openai-error';
import { ProviderError } from './provider';
import { isRecord } from '../shared/is-record';
import { sseEvents } from './sse-events';

/** What a 2xx answer to a streaming request holds. */
export type AnswerBody =
  | { kind: 'events'; events: AsyncIterable<ServerSentEvent> }
  /** One whole `chat.completion`: the server ignored `stream: true`. */
  | { kind: 'completion'; completion: Record<string, unknown> };

const SSE_START = /^(?::|data:|event:|id:|retry:)/;
const PREVIEW_CHARS = 120;

/**
 * Decides by its first bytes what a 2xx answer holds, since servers mislabel the content type both ways:
 * SSE events, or one JSON chat completion. An error object is the provider's error (retryable, like one
 * inside a stream); anything else (an HTML page, plain text, other JSON, nothing) is a ProviderError that
 * is not retried and names the content type and the first bytes: it comes from a wrong base URL or a
 * proxy, and asking again does not change it.
 */
export async function readAnswerBody(response: Response): Promise<AnswerBody> {
  const contentType = response.headers.get('content-type') ?? 'none';
  if (response.body === null) throw notAnAnswer(response, contentType, '');
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const head: Uint8Array[] = [];
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const start = text.replace(/^\uFEFF/, '').trimStart();
    if (start.length >= 6 || /^[{:]/.test(start) || /[\r\n]/.test(start)) break;
    const { value, done } = await reader.read();
    if (done) break;
    head.push(value);
    text += decoder.decode(value, { stream: true });
  }

  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (SSE_START.test(start)) {
    return { kind: 'events', events: sseEvents(replay(head, reader)) };
  }
  if (start.startsWith('{')) {
    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      text += decoder.decode(part.value, { stream: true });
    }
    text += decoder.decode();
    const value = parseJson(text);
    if (isRecord(value) && Array.isArray(value.choices)) return { kind: 'completion', completion: value };
    if (isRecord(value) && value.error !== undefined && value.error !== null) {
      throw toProviderError(new OpenAI.APIError(undefined, value.error, undefined, response.headers));
    }
    throw notAnAnswer(response, contentType, text);
  }
  await reader.cancel().catch(() => undefined);
  throw notAnAnswer(response, contentType, text);
}

/** One SSE event's JSON; an `{"error": …}` event is the provider giving up mid-answer. */
export function parseStreamEvent(event: ServerSentEvent, headers: Headers): unknown {
  let value: unknown;
  try {
    value = JSON.parse(event.data);
  } catch (error) {
    throw toProviderError(error);
  }
  if (isRecord(value) && value.error !== undefined && value.error !== null) {
    throw toProviderError(new OpenAI.APIError(undefined, value.error, undefined, headers));
  }
  return value;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function notAnAnswer(response: Response, contentType: string, text: string): ProviderError {
  const preview = text.trim().slice(0, PREVIEW_CHARS);
  const body = preview === '' ? 'an empty body' : `a body starting with "${preview}"`;
  return new ProviderError(
    `provider answered ${response.status} with content-type "${contentType}" and ${body}, ` +
      'neither an event stream nor a chat completion',
    response.status,
    false,
  );
}

/**
 * The bytes already read, then the rest of the body, as the chunks the SSE reader takes (cheaper than a second
 * ReadableStream and Response around the first). Breaking off cancels the body.
 */
function replay(
  head: Uint8Array[],
  reader: ReadableStreamDefaultReader<Uint8Array>,
): AsyncIterableIterator<Uint8Array> {
  let index = 0;
  const chunks: AsyncIterableIterator<Uint8Array> = {
    async next() {
      if (index < head.length) return { done: false, value: head[index++] };
      const { value, done } = await reader.read();
      return done ? { done: true, value: undefined } : { done: false, value };
    },
    async return() {
      await reader.cancel();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return chunks;
}
