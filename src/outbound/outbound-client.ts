import { pipeline, Readable } from 'node:stream';
import { Deadline } from '../common/deadline';
import { ToolExecutionError } from '../shared/tool-errors';
import { isSecretName, redactUrl } from '../shared/secrets';
import { AddressPolicy } from './address-policy';
import { createGuardedAgents, type GuardedAgents } from './guarded-agents';
import { createGuardedLookup } from './guarded-lookup';
import {
  exchange,
  type ExchangeRequest,
  type ExchangeResponse,
  type RedirectPolicy,
  StaleConnectionError,
} from './http-exchange';
import { toOutboundError } from './outbound-error';
import type { OutboundBody, OutboundClientOptions, OutboundRequest, OutboundResponse } from './outbound-request';
import { systemResolver, type OutboundResolver } from './outbound-resolver';
import { capBytes, readCapped, ResponseTooLargeError } from './read-capped';
import { RequestDeadline } from './request-deadline';
import { checkOutboundUrl, parseOutboundUrl } from './url-policy';

export type { OutboundClientOptions, OutboundRequest, OutboundResponse } from './outbound-request';

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

/** Where a request has got to: the URL of the hop being sent and the redirects followed so far. */
interface Trail {
  url: URL;
  redirects: string[];
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
    const first: ExchangeRequest = {
      url: parseOutboundUrl(request.url),
      method: (request.method ?? 'GET').toUpperCase(),
      headers,
      body: encodeBody(request.body, headers),
    };
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) first.url.searchParams.append(name, String(value));
    }
    const trail: Trail = { url: first.url, redirects: [] };
    try {
      checkOutboundUrl(first.url, this.policy);
      request.checkUrl?.(first.url);
      const follow = maxRedirects > 0 ? this.redirectPolicy(request, maxRedirects, trail) : undefined;
      const response = await this.send(first, deadline, () => {
        trail.url = first.url;
        trail.redirects = [];
        return exchange(first, this.agents, deadline.signal, follow);
      });
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
        finalUrl: redactUrl(trail.url.href, request.sensitiveQuery),
        redirects: trail.redirects,
        truncated: false,
      };
    } catch (error) {
      const failure = toOutboundError(error, trail.url, deadline);
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

  /** A kept-alive connection the server closed just as it was reused: an idempotent request goes out once more, on a new one. */
  private async send(
    first: ExchangeRequest,
    deadline: RequestDeadline,
    attempt: () => Promise<ExchangeResponse>,
  ): Promise<ExchangeResponse> {
    try {
      return await attempt();
    } catch (error) {
      if (
        !IDEMPOTENT_METHODS.has(first.method) ||
        !(error instanceof StaleConnectionError) ||
        deadline.signal.aborted
      ) {
        throw error;
      }
      return attempt();
    }
  }

  /**
   * Every hop is checked like the first URL (the SSRF policy, then the caller's own) before it is sent, and
   * leaves every credential-named header behind when it changes origin. axios (follow-redirects) changes the
   * method as browsers do: 303 (and 301/302 after a POST) become a body-less GET, 307/308 resend as they were.
   */
  private redirectPolicy(request: OutboundRequest, max: number, trail: Trail): RedirectPolicy {
    const sensitive = new Set((request.sensitiveHeaders ?? []).map((name) => name.toLowerCase()));
    return {
      max,
      next: (_status, location) => {
        if (trail.redirects.length >= max) {
          throw new ToolExecutionError(
            `too many redirects (more than ${max}), last to ${redactUrl(location, request.sensitiveQuery)}`,
          );
        }
        const url = parseOutboundUrl(location, trail.url.href);
        checkOutboundUrl(url, this.policy);
        request.checkUrl?.(url);
        const crossOrigin = url.origin !== trail.url.origin;
        trail.url = url;
        trail.redirects.push(redactUrl(url.href, request.sensitiveQuery));
        return { url, drop: (name) => crossOrigin && (isSecretName(name) || sensitive.has(name)) };
      },
    };
  }
}
