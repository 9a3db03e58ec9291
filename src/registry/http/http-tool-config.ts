import type { JsonSchema } from '../../shared/tool-types';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
export const AUTH_TYPES = ['none', 'bearer', 'basic', 'api_key_header', 'api_key_query'] as const;
export const PARSE_MODES = ['raw', 'json', 'markdown'] as const;
export const MAX_TIMEOUT_MS = 60_000;
export const MAX_RESPONSE_BYTES = 1024 * 1024;
export const MAX_RETRIES = 5;

export interface HttpAuthConfig {
  type: (typeof AUTH_TYPES)[number];
  token?: string;
  username?: string;
  password?: string;
  /** Header carrying the key for `api_key_header`; defaults to `X-API-Key`. */
  header_name?: string;
  /** Query parameter carrying the key for `api_key_query`; defaults to `api_key`. */
  query_name?: string;
  key?: string;
}

/** `implementation_config` of an `http` tool. Strings may hold `{param}` placeholders. */
export type HttpToolConfig = {
  url: string;
  method?: (typeof HTTP_METHODS)[number];
  headers?: Record<string, string>;
  query?: Record<string, string>;
  /** JSON template; a string that is exactly `{param}` keeps the argument's type. */
  body?: unknown;
  auth?: HttpAuthConfig;
  timeout_ms?: number;
  max_response_bytes?: number;
  /** How the body is turned into text for the model; detected from Content-Type when absent. */
  parse_mode?: (typeof PARSE_MODES)[number];
  /** Dotted paths kept from a JSON response, e.g. `current.temp_c`, `items[0].name`. */
  response_fields?: string[];
  allowed_domains?: string[];
  blocked_domains?: string[];
  retry?: { count: number; backoff_ms: number };
};

export const HTTP_SECRET_PATHS = ['/auth/token', '/auth/password', '/auth/key'] as const;

const domainPattern = { type: 'string', pattern: '^(\\*\\.)?[A-Za-z0-9.-]+$', maxLength: 253 };
const requireWhen = (type: string, required: string[]): JsonSchema => ({
  if: { properties: { type: { const: type } }, required: ['type'] },
  // The properties are repeated (as empty schemas) so each branch documents what it requires.
  then: { required, properties: Object.fromEntries(required.map((name) => [name, {}])) },
});

export const HTTP_TOOL_CONFIG_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: {
      type: 'string',
      pattern: '^https?://',
      maxLength: 2048,
      description: 'URL template; {param} placeholders are URL-encoded',
    },
    method: { type: 'string', enum: [...HTTP_METHODS], default: 'GET' },
    headers: { type: 'object', additionalProperties: { type: 'string', maxLength: 4096 } },
    query: { type: 'object', additionalProperties: { type: 'string', maxLength: 4096 } },
    body: { description: 'JSON template; a string exactly "{param}" keeps the argument type' },
    auth: {
      type: 'object',
      additionalProperties: false,
      required: ['type'],
      properties: {
        type: { type: 'string', enum: [...AUTH_TYPES] },
        token: { type: 'string', minLength: 1 },
        username: { type: 'string' },
        password: { type: 'string' },
        header_name: { type: 'string', pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$" },
        query_name: { type: 'string', minLength: 1 },
        key: { type: 'string', minLength: 1 },
      },
      allOf: [
        requireWhen('bearer', ['token']),
        requireWhen('basic', ['username', 'password']),
        requireWhen('api_key_header', ['key']),
        requireWhen('api_key_query', ['key']),
      ],
    },
    timeout_ms: { type: 'integer', minimum: 1, maximum: MAX_TIMEOUT_MS },
    max_response_bytes: { type: 'integer', minimum: 1, maximum: MAX_RESPONSE_BYTES },
    parse_mode: { type: 'string', enum: [...PARSE_MODES] },
    response_fields: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 256 }, maxItems: 50 },
    allowed_domains: { type: 'array', items: domainPattern, maxItems: 100 },
    blocked_domains: { type: 'array', items: domainPattern, maxItems: 100 },
    retry: {
      type: 'object',
      additionalProperties: false,
      required: ['count'],
      properties: {
        count: { type: 'integer', minimum: 0, maximum: MAX_RETRIES },
        backoff_ms: { type: 'integer', minimum: 0, maximum: 10_000, default: 250 },
      },
    },
  },
};
