import type { ClientRequest } from 'node:http';
import type { Readable } from 'node:stream';
import axios, { type AxiosResponse } from 'axios';
import type { GuardedAgents } from './guarded-agents';

/** One request as it goes on the wire: framing headers are set here, never by the caller. */
export interface ExchangeRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: Buffer | string | undefined;
}

/** The response head, and its body already decoded (gzip, deflate, br). */
export interface ExchangeResponse {
  status: number;
  statusText: string;
  /** Lower-case names; repeated headers joined with ", "; no content-encoding once the body is decoded. */
  headers: Record<string, string>;
  /** Destroying it closes the connection. */
  body: Readable;
}

/**
 * Decides one redirect hop before it is sent: returns the URL it goes to (after every check passed) and which
 * headers to drop; throws to refuse it. `status` is the redirect's, `location` its raw Location header.
 */
export interface RedirectPolicy {
  /** Hops followed at most; one more redirect reaches `next`, which refuses it with a readable error. */
  max: number;
  next(status: number, location: string, method: string): { url: URL; drop: (header: string) => boolean };
}

/** A kept-alive connection the server closed just as it was reused: the request never reached a live server. */
export class StaleConnectionError extends Error {
  constructor(cause: unknown) {
    super('the kept-alive connection was closed as it was reused', { cause });
    this.name = 'StaleConnectionError';
  }
}

const DEFAULT_HEADERS = { accept: 'application/json, text/plain, */*', 'accept-encoding': 'gzip, deflate, br' };

/**
 * axios as the service's one HTTP client. `proxy: false`: the guarded agents connect themselves, so an
 * HTTP(S)_PROXY in the environment can never route a request around their connect-time address check.
 * Bodies go and come as they are (no transforms); the caller reads the decoded stream with its own cap,
 * which reports the bytes read and costs less per chunk than axios's stream cap (an async iterator).
 */
const transport = axios.create({
  proxy: false,
  decompress: true,
  responseType: 'stream',
  validateStatus: null,
  transformRequest: [],
  transformResponse: [],
  maxBodyLength: Infinity,
  maxContentLength: -1,
});

const flatten = (raw: AxiosResponse['headers']): Record<string, string> => {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof value === 'string') flat[name.toLowerCase()] = value;
    else if (Array.isArray(value)) flat[name.toLowerCase()] = value.join(', ');
    else if (typeof value === 'number') flat[name.toLowerCase()] = String(value);
  }
  return flat;
};

/** axios's follow-redirects hook, running the caller's policy: it sees every hop before the hop is sent. */
const beforeRedirect =
  (policy: RedirectPolicy) =>
  (options: Record<string, unknown>, response: { statusCode: number; headers: Record<string, string> }): void => {
    const { url, drop } = policy.next(response.statusCode, response.headers.location, String(options.method));
    // follow-redirects resolved the Location itself; what it sends must be exactly what the policy checked.
    if (new URL(String(options.href)).href !== url.href) {
      throw new Error(`redirect target ${url.href} changed on the way`);
    }
    const headers = options.headers as Record<string, unknown>;
    for (const name of Object.keys(headers)) {
      if (drop(name.toLowerCase())) delete headers[name];
    }
  };

const reusedSocket = (error: unknown): boolean => {
  const request = (error as { request?: ClientRequest & { _currentRequest?: ClientRequest } }).request;
  return Boolean(request?.reusedSocket ?? request?._currentRequest?.reusedSocket);
};

const isReset = (error: unknown): boolean => {
  const code = (error as { code?: unknown }).code;
  return code === 'ECONNRESET' || code === 'EPIPE';
};

/**
 * Sends one request through axios with the guarded agents (their connect-time address check is the SSRF
 * guard; a pooled socket is one whose address passed) and resolves with the response head and its decoded
 * body. `signal` aborts the request and, until the body ends, the body too. Without a redirect policy, a
 * redirect is handed back as it is.
 */
export const exchange = async (
  request: ExchangeRequest,
  agents: GuardedAgents,
  signal: AbortSignal,
  redirects?: RedirectPolicy,
): Promise<ExchangeResponse> => {
  signal.throwIfAborted();
  try {
    const response = await transport.request<Readable>({
      url: request.url.href,
      method: request.method,
      headers: { ...DEFAULT_HEADERS, ...request.headers },
      data: request.body,
      httpAgent: agents.http,
      httpsAgent: agents.https,
      signal,
      // follow-redirects counts the refused hop too: `next` refuses hop max + 1 with the policy's own message.
      maxRedirects: redirects ? redirects.max + 1 : 0,
      ...(redirects ? { beforeRedirect: beforeRedirect(redirects) } : {}),
    });
    return {
      status: response.status,
      statusText: response.statusText,
      headers: flatten(response.headers),
      body: response.data,
    };
  } catch (error) {
    throw reusedSocket(error) && isReset(error) ? new StaleConnectionError(error) : error;
  }
};
