import { pipeline, Readable } from 'node:stream';
import { Deadline } from '../common/deadline';
import { ToolExecutionError } from '../shared/tool-errors';
import { isSecretName, redactUrl } from '../shared/secrets';
import { AddressPolicy } from './address-policy';
import { createGuardedAgents, type GuardedAgents } from './guarded-agents';
import { createGuardedLookup } from './guarded-lookup';
import { exchange, type ExchangeResponse, StaleConnectionError } from './http-exchange';
import { toOutboundError } from './outbound-error';
import type { OutboundBody, OutboundClientOptions, OutboundRequest, OutboundResponse } from './outbound-request';
import { systemResolver, type OutboundResolver } from './outbound-resolver';
import { capBytes, readCapped, ResponseTooLargeError } from './read-capped';
import { RequestDeadline } from './request-deadline';
import { checkOutboundUrl, parseOutboundUrl } from './url-policy';

export type { OutboundClientOptions, OutboundRequest, OutboundResponse } from './outbound-request';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

// Framing and routing headers are the transport's business; a caller (or a model) may not set them.
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-connection',
  'proxy-authorization',
]);

interface Hop {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

const encodeBody = (body: OutboundBody | undefined, headers: Record<string, string>): Buffer | undefined => {
  if (body === undefined) return undefined;
  const [type, data] =
    typeof body === 'string'
      ? ['text/plain; charset=utf-8', Buffer.from(body)]
      : Buffer.isBuffer(body)
        ? ['application/octet-stream', body]
        : ['application/json', Buffer.from(JSON.stringify(body))];
  headers['content-type'] ??= type;
  return data;
};

const lowerCaseHeaders = (headers: Record<string, string> = {}): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers)
      .map(([name, value]): [string, string] => [name.toLowerCase(), value])
      .filter(([name]) => !RESERVED_HEADERS.has(name)),
  );

/**
 * The only way ToolFlow talks to the outside world over HTTP. Every hop is checked against the
 * SSRF policy (scheme, credentials, IP literals) and every resolved address is checked again when
 * the socket connects; bodies are size-capped while streaming; failures become ToolExecutionErrors.
 */
export class OutboundClient {
  private readonly policy: AddressPolicy;
  private readonly agents: GuardedAgents;

  /** @param lookup resolver used at connect time; tests inject one to play DNS. */
  constructor(
    private readonly options: OutboundClientOptions,
    lookup: OutboundResolver = systemResolver,
  ) {
    this.policy = new AddressPolicy(options.allowPrivate);
    this.agents = createGuardedAgents(this.policy, createGuardedLookup(lookup, this.policy));
  }

  async request(request: OutboundRequest): Promise<OutboundResponse> {
    const deadline = new RequestDeadline(request.timeoutMs ?? this.options.defaultTimeoutMs, request.signal);
    const maxBytes = Math.min(request.maxResponseBytes ?? this.options.maxResponseBytes, this.options.maxResponseBytes);
    const maxRedirects = request.maxRedirects ?? this.options.maxRedirects;
    const headers = { 'user-agent': this.options.userAgent, ...lowerCaseHeaders(request.headers) };
    let hop: Hop = {
      url: parseOutboundUrl(request.url),
      method: (request.method ?? 'GET').toUpperCase(),
      headers,
      body: undefined,
    };
    hop.body = encodeBody(request.body, hop.headers);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) hop.url.searchParams.append(name, String(value));
    }
    const redirects: string[] = [];
    try {
      for (;;) {
        checkOutboundUrl(hop.url, this.policy);
        request.checkUrl?.(hop.url);
        const response = await this.send(hop, deadline);
        const location = response.headers.location;
        if (maxRedirects > 0 && REDIRECT_STATUSES.has(response.status) && location !== undefined) {
          response.body.destroy();
          if (redirects.length >= maxRedirects) {
            throw new ToolExecutionError(
              `too many redirects (more than ${maxRedirects}), last to ${redactUrl(location, request.sensitiveQuery)}`,
            );
          }
          hop = this.redirect(hop, response.status, parseOutboundUrl(location, hop.url.href), request.sensitiveHeaders);
          redirects.push(redactUrl(hop.url.href, request.sensitiveQuery));
          continue;
        }
        const declared = Number(response.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) {
          response.body.destroy();
          throw new ResponseTooLargeError(maxBytes, 0);
        }
        const body = await readCapped(response.body, maxBytes, deadline.signal);
        return {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
          body,
          bytes: body.length,
          finalUrl: redactUrl(hop.url.href, request.sensitiveQuery),
          redirects,
          truncated: false,
        };
      }
    } catch (error) {
      const failure = toOutboundError(error, hop.url, deadline);
      // Whatever is still open for this request (a connection, a body) closes with it.
      deadline.cancel();
      throw failure;
    } finally {
      deadline.dispose();
    }
  }

  /**
   * A `fetch` through the same guard for clients that read a streaming body (an MCP server's event stream):
   * the time limit covers the response headers only, the caller's signal ends the stream, no redirects are
   * followed, and the body is capped at `maxResponseBytes` (an event stream's at that much per event).
   */
  readonly fetch = async (input: string | URL, init: RequestInit = {}): Promise<Response> => {
    const url = parseOutboundUrl(String(input));
    const caller = init.signal ?? undefined;
    const stream = new Deadline({ parent: caller });
    const headersPhase = new RequestDeadline(this.options.defaultTimeoutMs, caller);
    const onHeadersAbort = () => stream.cancel(headersPhase.signal.reason);
    headersPhase.signal.addEventListener('abort', onHeadersAbort, { once: true });
    try {
      checkOutboundUrl(url, this.policy);
      if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') {
        throw new ToolExecutionError('only string request bodies can be sent');
      }
      const headers = {
        'user-agent': this.options.userAgent,
        ...lowerCaseHeaders(Object.fromEntries(new Headers(init.headers).entries())),
      };
      const method = (init.method ?? 'GET').toUpperCase();
      const response = await exchange(
        { url, method, headers, body: init.body ?? undefined },
        this.agents,
        stream.signal,
      );
      headersPhase.signal.removeEventListener('abort', onHeadersAbort);
      response.body.once('close', () => stream.dispose());
      const bodiless = method === 'HEAD' || [101, 204, 205, 304].includes(response.status);
      if (bodiless) response.body.destroy();
      const body = bodiless ? null : (Readable.toWeb(this.capped(response)) as unknown as ReadableStream<Uint8Array>);
      return new Response(body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    } catch (error) {
      stream.dispose();
      throw toOutboundError(error, url, headersPhase);
    } finally {
      headersPhase.dispose();
    }
  };

  private capped(response: ExchangeResponse): Readable {
    const eventStream = /^text\/event-stream\b/i.test(response.headers['content-type'] ?? '');
    const cap = capBytes(this.options.maxResponseBytes, eventStream);
    pipeline(response.body, cap, () => undefined);
    return cap;
  }

  private async send(hop: Hop, deadline: RequestDeadline): Promise<ExchangeResponse> {
    const send = () => exchange(hop, this.agents, deadline.signal);
    try {
      return await send();
    } catch (error) {
      // A kept-alive connection the server closed just as it was reused: an idempotent request goes out once more, on a new one.
      if (!IDEMPOTENT_METHODS.has(hop.method) || !(error instanceof StaleConnectionError) || deadline.signal.aborted) {
        throw error;
      }
      return send();
    }
  }

  private redirect(previous: Hop, status: number, next: URL, sensitive: readonly string[] = []): Hop {
    const headers = { ...previous.headers };
    if (next.origin !== previous.url.origin) {
      const extra = new Set(sensitive.map((name) => name.toLowerCase()));
      for (const name of Object.keys(headers)) {
        if (isSecretName(name) || extra.has(name)) delete headers[name];
      }
    }
    const keepsMethod = status === 307 || status === 308 || (status !== 303 && previous.method !== 'POST');
    if (keepsMethod || previous.method === 'HEAD')
      return { url: next, method: previous.method, headers, body: previous.body };
    delete headers['content-type'];
    return { url: next, method: 'GET', headers, body: undefined };
  }
}
