import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RecordedRequest, recordRequest } from './recorded-request';
import { type EmbeddingsAnswer, type EmbeddingsBehaviour, EmbeddingsScript } from './embeddings-endpoint';

export type { RecordedRequest } from './recorded-request';

/** A streamed 200 answer: each frame (an SSE event or an NDJSON line) written to the socket as it is. */
export interface FramesTurn {
  kind: 'frames';
  frames: string[];
  /** Cut the connection after this many frames (no clean end). */
  dropAfterFrames?: number;
}

/** Any status with a JSON (or text) body, e.g. a 429 with Retry-After or a 529 overloaded_error. */
export interface StatusTurn {
  kind: 'status';
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface ChooseTurn {
  kind: 'choose';
  choose: (request: RecordedRequest) => ScriptTurn;
}

export type ScriptTurn = FramesTurn | StatusTurn | ChooseTurn;

export interface ScriptedLlmServerOptions {
  /** The one path the protocol serves, e.g. `/v1/messages`. */
  path: string;
  contentType: string;
  /** What the server's root URL becomes for the protocol's SDK (e.g. `/v1` appended for OpenAI). */
  basePath?: string;
  /** The error body of an exhausted script, in the protocol's own error shape. */
  exhausted: (message: string) => unknown;
  /** The 400 the real API answers to a request it refuses (before any turn is used), or null. */
  refuse?: (request: RecordedRequest) => unknown;
  /** The protocol's embeddings endpoint, answered by `embedWith`'s behaviour instead of the script. */
  embeddings?: {
    path: string;
    answer: (request: RecordedRequest, behaviour?: EmbeddingsBehaviour) => EmbeddingsAnswer;
  };
  /** The protocol's model list endpoint (GET), answering `listModels`'s ids in the protocol's shape. */
  models: { path: string; answer: (ids: readonly string[]) => unknown };
}

/**
 * A local server for one LLM protocol: answers POSTs to its path from a script of turns (one per request,
 * in order) and records every request. The protocol's test server builds the frames; this one only
 * writes them. An exhausted script answers 500 naming the request, so a test fails loudly.
 */
export class ScriptedLlmServer {
  readonly requests: RecordedRequest[] = [];
  private readonly turns: ScriptTurn[] = [];
  private readonly server: Server;
  private readonly embeddingsScript = new EmbeddingsScript();
  private modelIds: readonly string[] = [];
  /** Model list requests answered (they are not in `requests`, which holds the scripted protocol's). */
  modelListings = 0;

  protected constructor(private readonly options: ScriptedLlmServerOptions) {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        response.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  }

  protected async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
  }

  /** What the protocol's official SDK takes as its base URL. */
  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${this.options.basePath ?? ''}`;
  }

  script(turns: ScriptTurn[]): this {
    this.turns.push(...turns);
    return this;
  }

  get pendingTurns(): number {
    return this.turns.length;
  }

  /** How the embeddings endpoint answers from now on, one behaviour per request, the last for every later one. */
  embedWith(...behaviours: EmbeddingsBehaviour[]): this {
    this.embeddingsScript.set(behaviours);
    return this;
  }

  /** The models the model list endpoint names from now on. */
  listModels(ids: readonly string[]): this {
    this.modelIds = ids;
    return this;
  }

  reset(): void {
    this.requests.length = 0;
    this.turns.length = 0;
    this.embeddingsScript.set([]);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method === 'GET' && request.url?.split('?')[0] === this.options.models.path) {
      this.modelListings += 1;
      request.resume();
      sendJson(response, 200, this.options.models.answer(this.modelIds));
      return;
    }
    const recorded = await recordRequest(request);
    this.requests.push(recorded);
    const number = this.requests.length;
    const { embeddings } = this.options;
    if (request.method === 'POST' && embeddings !== undefined && recorded.path.split('?')[0] === embeddings.path) {
      const answer = embeddings.answer(recorded, this.embeddingsScript.next());
      if ('drop' in answer) request.socket.destroy();
      else sendJson(response, answer.status, answer.body);
      return;
    }
    if (request.method !== 'POST' || recorded.path.split('?')[0] !== this.options.path) {
      sendJson(response, 404, this.options.exhausted(`no route ${request.method} ${recorded.path}`));
      return;
    }
    const refusal = this.options.refuse?.(recorded) ?? null;
    if (refusal !== null) {
      sendJson(response, 400, refusal, { 'request-id': `req_test_${number}` });
      return;
    }
    let turn = this.turns.shift();
    while (turn?.kind === 'choose') turn = turn.choose(recorded);
    if (turn === undefined) {
      sendJson(response, 500, this.options.exhausted(`script exhausted, no turn left for request #${number}`));
      return;
    }
    if (turn.kind === 'status') {
      sendJson(response, turn.status, turn.body, { 'request-id': `req_test_${number}`, ...turn.headers });
      return;
    }
    response.writeHead(200, {
      'content-type': this.options.contentType,
      'cache-control': 'no-cache',
      'request-id': `req_test_${number}`,
    });
    response.flushHeaders();
    const frames = turn.frames.slice(0, turn.dropAfterFrames ?? turn.frames.length);
    for (const frame of frames) {
      if (response.destroyed) return;
      await new Promise<void>((resolve) => response.write(frame, () => resolve()));
    }
    if (turn.dropAfterFrames !== undefined) response.socket?.destroy();
    else response.end();
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = typeof body === 'string';
  response.writeHead(status, { 'content-type': text ? 'text/plain' : 'application/json', ...headers });
  response.end(text ? body : JSON.stringify(body));
}

/** One SSE event as the Anthropic and OpenAI Responses APIs write it: a named event and its JSON. */
export const sseEvent = (type: string, data: Record<string, unknown>): string =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
