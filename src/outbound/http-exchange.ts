import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { pipeline, type Readable, Transform } from 'node:stream';
import zlib from 'node:zlib';
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

/** A kept-alive connection the server closed just as it was reused: the request never reached a live server. */
export class StaleConnectionError extends Error {
  constructor(cause: unknown) {
    super('the kept-alive connection was closed as it was reused', { cause });
    this.name = 'StaleConnectionError';
  }
}

const DEFAULT_HEADERS = { accept: 'application/json, text/plain, */*', 'accept-encoding': 'gzip, deflate, br' };
// Flushing on a truncated stream hands over what arrived instead of failing on the missing trailer.
const LENIENT = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
const ZLIB_HEADER = Buffer.from([0x78, 0x9c]);

/** Servers send "deflate" both zlib-wrapped (as the RFC says) and raw; a raw one gets the zlib header it lacks. */
const zlibWrapped = (): Transform => {
  let first = true;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (first && chunk.length > 0) {
        first = false;
        if (chunk[0] !== ZLIB_HEADER[0]) this.push(ZLIB_HEADER);
      }
      done(null, chunk);
    },
  });
};

const decoders = (encoding: string): Transform[] | null => {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return [zlib.createUnzip(LENIENT)];
    case 'deflate':
      return [zlibWrapped(), zlib.createUnzip(LENIENT)];
    case 'br':
      return [zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH })];
    default:
      return null;
  }
};

const flatten = (raw: IncomingMessage['headers']): Record<string, string> => {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value === 'string') flat[name] = value;
    else if (Array.isArray(value)) flat[name] = value.join(', ');
  }
  return flat;
};

const decoded = (request: ExchangeRequest, response: IncomingMessage, headers: Record<string, string>): Readable => {
  const bodiless = request.method === 'HEAD' || response.statusCode === 204 || response.statusCode === 304;
  const chain = bodiless ? null : decoders((headers['content-encoding'] ?? '').trim().toLowerCase());
  if (!chain) return response;
  delete headers['content-encoding'];
  pipeline([response, ...chain], () => undefined);
  return chain[chain.length - 1];
};

/**
 * Sends one request through the guarded agents (their connect-time address check is the SSRF guard; a pooled
 * socket is one whose address passed) and resolves with the response head. `signal` aborts the request and,
 * until the body ends, the body too. Follows no redirects.
 */
export const exchange = async (
  request: ExchangeRequest,
  agents: GuardedAgents,
  signal: AbortSignal,
): Promise<ExchangeResponse> => {
  signal.throwIfAborted();
  const { url, body } = request;
  const headers: Record<string, string> = { ...DEFAULT_HEADERS, ...request.headers };
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  const secure = url.protocol === 'https:';
  const outgoing = (secure ? https : http).request({
    protocol: url.protocol,
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port || (secure ? 443 : 80),
    path: `${url.pathname}${url.search}`,
    method: request.method,
    headers,
    agent: secure ? agents.https : agents.http,
  });
  return new Promise<ExchangeResponse>((resolve, reject) => {
    const onAbort = (): void => {
      outgoing.destroy(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const release = (): void => signal.removeEventListener('abort', onAbort);
    // Stays on for the request's life: a socket error after the response must not go unhandled.
    outgoing.on('error', (error) => {
      release();
      reject(outgoing.reusedSocket && isReset(error) ? new StaleConnectionError(error) : error);
    });
    outgoing.once('response', (response) => {
      response.once('close', release);
      const flat = flatten(response.headers);
      resolve({
        status: response.statusCode ?? 0,
        statusText: response.statusMessage ?? '',
        headers: flat,
        body: decoded(request, response, flat),
      });
    });
    outgoing.end(body);
  });
};

const isReset = (error: unknown): boolean => {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ECONNRESET' || code === 'EPIPE';
};
