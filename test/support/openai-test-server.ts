import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type EmbeddingsBehaviour, EmbeddingsScript, openaiEmbeddings } from './embeddings-endpoint';
import { type RecordedRequest, recordRequest } from './recorded-request';
import { chatResponseFormatError } from './structured-output-wire';

/**
 * A local OpenAI-compatible Chat Completions server for tests. It answers `POST /v1/chat/completions`
 * from a script of turns (one per request, in order), streams real SSE when the request says
 * `stream: true`, and records every request. When the script runs out it answers 500 with a message
 * naming the request, so a test fails loudly instead of hanging. `POST /v1/embeddings` answers with
 * `embedWith`'s vectors (floats, or base64 when asked, as the official SDK does by default).
 */

export type { RecordedRequest } from './recorded-request';

export interface OpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
  completion_tokens_details?: { reasoning_tokens: number };
}

/** A chunk object, or its payload (`choices`, `usage` …) to which the server adds id/object/created/model. */
export type ChunkPayload = Record<string, unknown>;
/** `{ raw }` is written to the socket verbatim: SSE comments, broken JSON, a custom event. */
export type SseEvent = ChunkPayload | { raw: string };

export interface DeliveryOptions {
  /** Wait before sending the response headers. */
  delayMs?: number;
  /** Wait between two socket writes. */
  chunkDelayMs?: number;
  /** Cut the connection after this many events were written (no `[DONE]`, no clean end). */
  dropAfterEvents?: number;
  /** Write the SSE body in slices of this many bytes, cutting multi-byte UTF-8 characters apart. */
  bytesPerWrite?: number;
  /** Stop writing after this many events and keep the connection open, silent, until the client gives up. */
  stallAfterEvents?: number;
  headers?: Record<string, string>;
}

export interface StreamTurn extends DeliveryOptions {
  kind: 'stream';
  events: SseEvent[];
  /** Send chunk objects exactly as given: no envelope, no `usage: null`, no usage chunk. */
  raw?: boolean;
  /** Usage for the final `choices: []` chunk (sent when the request asks `stream_options.include_usage`); null: never. */
  usage?: OpenAIUsage | null;
  /** End with `data: [DONE]`. Default true. */
  done?: boolean;
  /**
   * Answer one `chat.completion` JSON object (application/json) even when the request says `stream: true`,
   * as servers that ignore streaming do.
   */
  ignoreStream?: boolean;
}

export interface ErrorTurn {
  kind: 'error';
  status: number;
  /** A string is sent as text/plain, anything else as JSON. */
  body: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

/** Destroys the socket without answering. */
export interface DropTurn {
  kind: 'drop';
  delayMs?: number;
}

/** Any body with any status and content type, verbatim: an HTML page or plain text where JSON or SSE belongs. */
export interface BodyTurn {
  kind: 'body';
  status: number;
  contentType: string;
  body: string;
}

/** Reads the request and never answers (no headers) until the client gives up or the server closes. */
export interface HangTurn {
  kind: 'hang';
}

export interface DynamicTurn {
  kind: 'dynamic';
  choose: (request: RecordedRequest) => Turn;
}

export type Turn = StreamTurn | ErrorTurn | DropTurn | BodyTurn | HangTurn | DynamicTurn;

export interface ScriptedToolCall {
  /** null: the call never receives a name. */
  name: string | null;
  arguments?: string | Record<string, unknown>;
  /** Default `call_<position>`; null: no id is ever sent. */
  id?: string | null;
  /** Send the name with the first argument fragment instead of the first chunk. */
  nameLate?: boolean;
}

export interface TextOptions extends DeliveryOptions {
  /** UTF-16 code units per content delta. Default 4. */
  chunkSize?: number;
  /** Sent first as `reasoning_content` deltas. */
  reasoning?: string;
  finishReason?: string | null;
  usage?: OpenAIUsage | null;
  done?: boolean;
}

export interface ToolCallsOptions extends DeliveryOptions {
  /** UTF-16 code units per argument fragment (so a surrogate pair can be split). Default 3. */
  argsChunkSize?: number;
  /** Each call in a single chunk: id, name and all arguments. */
  whole?: boolean;
  /** Continuation chunks repeat `id: ""`, `type` and `name: ""` (as several compatible servers do). */
  emptyContinuation?: boolean;
  omitIndex?: boolean;
  /** First `index`; some servers start at 1. Default 0. */
  indexBase?: number;
  omitType?: boolean;
  /** Parallel calls' chunks alternate. Default true. */
  interleave?: boolean;
  /** Default `tool_calls`; null: no finish_reason at all. */
  finishReason?: string | null;
  /** Put finish_reason in the chunk carrying the last fragment instead of a chunk of its own. */
  finishWithLastFragment?: boolean;
  /** `content` of the first delta: null (OpenAI), '' (some servers), or text streamed before the calls. */
  content?: string | null;
  /** `reasoning_content` deltas before the calls. */
  reasoning?: string;
  usage?: OpenAIUsage | null;
  done?: boolean;
}

export const DEFAULT_USAGE: OpenAIUsage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

/** Splits by UTF-16 code units: a size of 1 cuts every surrogate pair in two. */
export const splitText = (text: string, size: number): string[] => {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += Math.max(1, size)) pieces.push(text.slice(start, start + size));
  return pieces;
};

/** The payload of a chunk with one choice. */
export const delta = (value: Record<string, unknown>, finishReason: string | null = null): ChunkPayload => ({
  choices: [{ index: 0, delta: value, logprobs: null, finish_reason: finishReason }],
});

export const usageChunk = (usage: OpenAIUsage = DEFAULT_USAGE): ChunkPayload => ({ choices: [], usage });

export const reply = {
  text(text: string, options: TextOptions = {}): StreamTurn {
    const { chunkSize = 4, reasoning, finishReason = 'stop' } = options;
    const events: SseEvent[] = [delta({ role: 'assistant', content: '', refusal: null })];
    for (const piece of splitText(reasoning ?? '', chunkSize))
      events.push(delta({ content: null, reasoning_content: piece }));
    for (const piece of splitText(text, chunkSize)) events.push(delta({ content: piece }));
    if (finishReason !== null) events.push(delta({}, finishReason));
    return { kind: 'stream', events, usage: options.usage, done: options.done, ...pickDelivery(options) };
  },

  toolCalls(calls: ScriptedToolCall[], options: ToolCallsOptions = {}): StreamTurn {
    const {
      interleave = true,
      finishReason = 'tool_calls',
      finishWithLastFragment,
      content = null,
      reasoning,
    } = options;

    const events: SseEvent[] = [];
    for (const piece of splitText(reasoning ?? '', 4)) events.push(delta({ content: null, reasoning_content: piece }));
    const text = content !== null && content !== '' ? content : null;
    events.push(delta({ role: 'assistant', content: text === null ? content : '', refusal: null }));
    for (const piece of splitText(text ?? '', 4)) events.push(delta({ content: piece }));

    const perCall = calls.map((call, position) => toolCallItems(call, position, options));
    const ordered = interleave ? roundRobin(perCall) : perCall.flat();
    ordered.forEach((item, position) => {
      const last = position === ordered.length - 1;
      const finish = last && finishWithLastFragment === true ? finishReason : null;
      events.push(delta({ tool_calls: [item] }, finish));
    });
    if (finishReason !== null && finishWithLastFragment !== true) events.push(delta({}, finishReason));
    return { kind: 'stream', events, usage: options.usage, done: options.done, ...pickDelivery(options) };
  },

  /** Payloads (see `delta`) wrapped in the envelope; with `raw: true` sent exactly as given. */
  chunks(events: SseEvent[], options: Omit<StreamTurn, 'kind' | 'events'> = {}): StreamTurn {
    return { kind: 'stream', events, ...options };
  },

  error(
    status: number,
    message = `scripted error ${status}`,
    options: { headers?: Record<string, string>; body?: unknown; delayMs?: number } = {},
  ): ErrorTurn {
    const body = options.body ?? { error: { message, type: errorType(status), param: null, code: null } };
    return { kind: 'error', status, body, headers: options.headers, delayMs: options.delayMs };
  },

  drop(options: { delayMs?: number } = {}): DropTurn {
    return { kind: 'drop', ...options };
  },

  /** The same answer as one `chat.completion` JSON object, whatever the request asked for. */
  ignoringStream(turn: StreamTurn): StreamTurn {
    return { ...turn, ignoreStream: true };
  },

  body(body: string, options: { status?: number; contentType?: string } = {}): BodyTurn {
    return { kind: 'body', status: options.status ?? 200, contentType: options.contentType ?? 'text/plain', body };
  },

  hang(): HangTurn {
    return { kind: 'hang' };
  },

  from(choose: (request: RecordedRequest) => Turn): DynamicTurn {
    return { kind: 'dynamic', choose };
  },
};

function pickDelivery(options: DeliveryOptions): DeliveryOptions {
  const { delayMs, chunkDelayMs, dropAfterEvents, bytesPerWrite, stallAfterEvents, headers } = options;
  return { delayMs, chunkDelayMs, dropAfterEvents, bytesPerWrite, stallAfterEvents, headers };
}

function toolCallItems(call: ScriptedToolCall, position: number, options: ToolCallsOptions): Record<string, unknown>[] {
  const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
  const id = call.id === undefined ? `call_${position}` : call.id;
  const head: Record<string, unknown> = {};
  if (options.omitIndex !== true) head.index = (options.indexBase ?? 0) + position;
  const first: Record<string, unknown> = { ...head };
  if (id !== null) first.id = id;
  if (options.omitType !== true) first.type = 'function';
  const firstFunction: Record<string, unknown> = { arguments: options.whole === true ? args : '' };
  if (call.name !== null && call.nameLate !== true) firstFunction.name = call.name;
  first.function = firstFunction;
  if (options.whole === true) return [first];

  const fragments = args === '' ? [''] : splitText(args, options.argsChunkSize ?? 3);
  return [
    first,
    ...fragments.map((piece, index) => {
      const item: Record<string, unknown> = { ...head };
      const fn: Record<string, unknown> = { arguments: piece };
      if (options.emptyContinuation === true) {
        item.id = '';
        if (options.omitType !== true) item.type = 'function';
        fn.name = '';
      }
      if (index === 0 && call.nameLate === true && call.name !== null) fn.name = call.name;
      item.function = fn;
      return item;
    }),
  ];
}

function roundRobin<T>(lists: T[][]): T[] {
  const result: T[] = [];
  for (let row = 0; result.length < lists.reduce((sum, list) => sum + list.length, 0); row++) {
    for (const list of lists) if (row < list.length) result.push(list[row]);
  }
  return result;
}

function errorType(status: number): string {
  if (status === 401) return 'invalid_request_error';
  if (status === 429) return 'rate_limit_exceeded';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

export class OpenAITestServer {
  readonly requests: RecordedRequest[] = [];
  private readonly turns: Turn[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private gate: Promise<void> = Promise.resolve();
  private readonly embeddings = new EmbeddingsScript();
  private modelIds: readonly string[] = [];
  /** `GET /v1/models` requests answered (not in `requests`, which holds the chat and embeddings ones). */
  modelListings = 0;

  private readonly server: Server;

  private constructor() {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        response.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  }

  static async start(): Promise<OpenAITestServer> {
    const instance = new OpenAITestServer();
    await new Promise<void>((resolve, reject) => {
      instance.server.once('error', reject);
      instance.server.listen(0, '127.0.0.1', () => resolve());
    });
    return instance;
  }

  private get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** `http://127.0.0.1:<port>/v1`, what an OpenAI client takes as its base URL. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** Appends turns; each request consumes the next one. */
  script(turns: Turn[]): this {
    this.turns.push(...turns);
    return this;
  }

  get pendingTurns(): number {
    return this.turns.length;
  }

  /** Requests are recorded but not answered until the returned function is called. */
  hold(): () => void {
    let release: () => void = () => undefined;
    this.gate = new Promise<void>((resolve) => (release = resolve));
    return release;
  }

  /**
   * How `POST /v1/embeddings` answers from now on, one behaviour per request, the last for every later one
   * (not from the chat script: a node may embed at any time).
   */
  embedWith(...behaviours: EmbeddingsBehaviour[]): this {
    this.embeddings.set(behaviours);
    return this;
  }

  /** Forgets recorded requests, unused turns and the embeddings behaviour, between tests sharing one server. */
  reset(): void {
    this.requests.length = 0;
    this.turns.length = 0;
    this.embeddings.set([]);
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The models `GET /v1/models` names from now on. */
  listModels(ids: readonly string[]): this {
    this.modelIds = ids;
    return this;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method === 'GET' && request.url?.split('?')[0] === '/v1/models') {
      this.modelListings += 1;
      request.resume();
      sendJson(response, 200, openaiModelList(this.modelIds));
      return;
    }
    const recorded = await recordRequest(request);
    this.requests.push(recorded);
    const number = this.requests.length;
    if (request.method === 'POST' && recorded.path.endsWith('/embeddings')) {
      const answer = openaiEmbeddings(recorded, this.embeddings.next());
      if ('drop' in answer) request.socket.destroy();
      else sendJson(response, answer.status, answer.body, { 'x-request-id': `req_test_${number}` });
      return;
    }
    if (request.method !== 'POST' || !recorded.path.endsWith('/chat/completions')) {
      sendJson(response, 404, { error: { message: `OpenAITestServer: no route ${request.method} ${recorded.path}` } });
      return;
    }
    const refusal = chatResponseFormatError(recorded);
    if (refusal !== null) {
      const error = { message: refusal, type: 'invalid_request_error', param: 'response_format', code: null };
      sendJson(response, 400, { error }, { 'x-request-id': `req_test_${number}` });
      return;
    }
    let turn = this.turns.shift();
    while (turn?.kind === 'dynamic') turn = turn.choose(recorded);
    if (turn === undefined) {
      const message = `OpenAITestServer: script exhausted, no turn left for request #${number} (${recorded.path})`;
      sendJson(response, 500, { error: { message, type: 'server_error', param: null, code: 'script_exhausted' } });
      return;
    }
    if (turn.kind === 'hang') return;
    if (turn.kind === 'body') {
      response.writeHead(turn.status, { 'content-type': turn.contentType, 'x-request-id': `req_test_${number}` });
      response.end(turn.body);
      return;
    }
    await this.sleep(turn.delayMs);
    await this.gate;
    if (response.destroyed) return;
    if (turn.kind === 'drop') {
      request.socket.destroy();
      return;
    }
    if (turn.kind === 'error') {
      const text = typeof turn.body === 'string';
      response.writeHead(turn.status, {
        'content-type': text ? 'text/plain' : 'application/json',
        'x-request-id': `req_test_${number}`,
        ...turn.headers,
      });
      response.end(text ? turn.body : JSON.stringify(turn.body));
      return;
    }
    if (recorded.body.stream === true && turn.ignoreStream !== true)
      await this.stream(turn, recorded, number, response);
    else
      sendJson(response, 200, completion(turn, recorded, number), {
        'x-request-id': `req_test_${number}`,
        ...turn.headers,
      });
  }

  private async stream(
    turn: StreamTurn,
    request: RecordedRequest,
    number: number,
    response: ServerResponse,
  ): Promise<void> {
    const events = sseEvents(turn, request, number).map((event) => Buffer.from(event, 'utf8'));
    const dropped = turn.dropAfterEvents !== undefined;
    const stalled = turn.stallAfterEvents !== undefined;
    const sent = events.slice(0, turn.dropAfterEvents ?? turn.stallAfterEvents ?? events.length);
    const writes = turn.bytesPerWrite === undefined ? sent : sliceBytes(Buffer.concat(sent), turn.bytesPerWrite);

    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-request-id': `req_test_${number}`,
      ...turn.headers,
    });
    response.flushHeaders();
    for (const [index, write] of writes.entries()) {
      if (index > 0) await this.sleep(turn.chunkDelayMs);
      if (response.destroyed) return;
      await new Promise<void>((resolve) => response.write(write, () => resolve()));
    }
    if (dropped) response.socket?.destroy();
    else if (!stalled) response.end();
  }

  private async sleep(ms: number | undefined): Promise<void> {
    if (ms === undefined || ms <= 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

function envelope(request: RecordedRequest, number: number, object: string): Record<string, unknown> {
  const model = typeof request.body.model === 'string' ? request.body.model : 'test-model';
  return { id: `chatcmpl-test-${number}`, object, created: Math.floor(Date.now() / 1000), model };
}

const wantsUsage = (request: RecordedRequest): boolean => {
  const options = request.body.stream_options;
  return (
    typeof options === 'object' && options !== null && 'include_usage' in options && options.include_usage === true
  );
};

function sseEvents(turn: StreamTurn, request: RecordedRequest, number: number): string[] {
  const includeUsage = wantsUsage(request) && turn.raw !== true;
  const base = envelope(request, number, 'chat.completion.chunk');
  const lines = turn.events.map((event) => {
    if (typeof event.raw === 'string') return event.raw;
    const chunk = turn.raw === true ? event : { ...base, ...(includeUsage ? { usage: null } : {}), ...event };
    return `data: ${JSON.stringify(chunk)}\n\n`;
  });
  if (includeUsage && turn.usage !== null) {
    lines.push(`data: ${JSON.stringify({ ...base, ...usageChunk(turn.usage ?? DEFAULT_USAGE) })}\n\n`);
  }
  if (turn.done !== false) lines.push('data: [DONE]\n\n');
  return lines;
}

function sliceBytes(bytes: Buffer, size: number): Buffer[] {
  const slices: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += Math.max(1, size))
    slices.push(bytes.subarray(start, start + size));
  return slices;
}

/** The same turn as one `chat.completion` object, for requests with `stream: false`. */
function completion(turn: StreamTurn, request: RecordedRequest, number: number): Record<string, unknown> {
  let content: string | null = null;
  let reasoning = '';
  let finishReason: unknown = null;
  const calls = new Map<number, { id: string; type: 'function'; function: { name: string; arguments: string } }>();
  for (const event of turn.events) {
    const payload: Record<string, unknown> = event;
    const choice = Array.isArray(payload.choices)
      ? (payload.choices[0] as Record<string, unknown> | undefined)
      : undefined;
    if (choice === undefined) continue;
    finishReason = choice.finish_reason ?? finishReason;
    const part = (choice.delta ?? {}) as Record<string, unknown>;
    if (typeof part.content === 'string' && part.content !== '') content = (content ?? '') + part.content;
    if (typeof part.reasoning_content === 'string') reasoning += part.reasoning_content;
    const items = Array.isArray(part.tool_calls) ? (part.tool_calls as Record<string, unknown>[]) : [];
    for (const item of items) {
      const index = typeof item.index === 'number' ? item.index : Math.max(0, calls.size - (item.id ? 0 : 1));
      const call = calls.get(index) ?? { id: '', type: 'function', function: { name: '', arguments: '' } };
      const fn = (item.function ?? {}) as Record<string, unknown>;
      if (typeof item.id === 'string' && item.id !== '') call.id = item.id;
      if (typeof fn.name === 'string' && fn.name !== '') call.function.name = fn.name;
      if (typeof fn.arguments === 'string') call.function.arguments += fn.arguments;
      calls.set(index, call);
    }
  }
  const message: Record<string, unknown> = { role: 'assistant', content, refusal: null };
  if (reasoning !== '') message.reasoning_content = reasoning;
  if (calls.size > 0) message.tool_calls = [...calls.values()];
  return {
    ...envelope(request, number, 'chat.completion'),
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
    usage: turn.usage ?? DEFAULT_USAGE,
  };
}

/** `GET /v1/models` as OpenAI answers it (also the Responses API's base). */
export function openaiModelList(ids: readonly string[]): unknown {
  return {
    object: 'list',
    data: ids.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'toolflow-test' })),
  };
}
