/** A request body: strings and buffers go as they are, anything else is sent as JSON. */
export type OutboundBody = string | Buffer | Record<string, unknown> | unknown[] | number | boolean | null;

export interface OutboundRequest {
  /** Defaults to GET. */
  method?: string;
  url: string;
  headers?: Record<string, string>;
  /** Appended to the URL's query string; undefined values are skipped. */
  query?: Record<string, string | number | boolean | undefined>;
  body?: OutboundBody;
  timeoutMs?: number;
  /** Capped by the client's own `maxResponseBytes`. */
  maxResponseBytes?: number;
  signal?: AbortSignal;
  /** 0 returns a redirect response as is; otherwise more than this many hops fail. */
  maxRedirects?: number;
  /** Headers dropped when a redirect changes origin, besides every credential-named one (shared/secrets). */
  sensitiveHeaders?: readonly string[];
  /** Query parameters masked in `finalUrl`, `redirects` and errors, besides every credential-named one. */
  sensitiveQuery?: readonly string[];
  /** Caller's own policy (e.g. a domain allowlist), applied to the first URL and to every redirect hop. */
  checkUrl?: (url: URL) => void;
}

export interface OutboundResponse {
  status: number;
  statusText: string;
  /** Lower-case header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  bytes: number;
  /** Where the body came from; credential query values masked. */
  finalUrl: string;
  /** Every URL redirected to, in order; credential query values masked. */
  redirects: string[];
  /** Never true: a body over the limit is an error, not a partial result. */
  truncated?: false;
}

export interface OutboundClientOptions {
  /** CIDRs operators deliberately allow despite being private/loopback/…, e.g. `['10.0.0.0/8']`. */
  allowPrivate: readonly string[];
  defaultTimeoutMs: number;
  /** Default and ceiling for every request's response size. */
  maxResponseBytes: number;
  maxRedirects: number;
  userAgent: string;
}
