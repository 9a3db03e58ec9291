import { type Static, Type } from '@sinclair/typebox';
import { enumOf, mapOf } from '../../json-schema/schema-helpers';
import type { JsonSchema } from '../../shared/tool-types';
import { QUERY_STYLES } from './serialize-query';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
export const AUTH_TYPES = ['none', 'bearer', 'basic', 'api_key_header', 'api_key_query'] as const;
export const PARSE_MODES = ['raw', 'json', 'markdown'] as const;
export const MAX_TIMEOUT_MS = 60_000;
export const MAX_RESPONSE_BYTES = 1024 * 1024;
export const MAX_RETRIES = 5;

export const HTTP_SECRET_PATHS = ['/auth/token', '/auth/password', '/auth/key'] as const;

const domainPattern = Type.String({ pattern: '^(\\*\\.)?[A-Za-z0-9.-]+$', maxLength: 253 });
const requireWhen = (type: string, required: string[]): JsonSchema => ({
  if: { properties: { type: { const: type } }, required: ['type'] },
  // The properties are repeated (as empty schemas) so each branch documents what it requires.
  then: { required, properties: Object.fromEntries(required.map((name) => [name, {}])) },
});
const stringMap = mapOf(Type.String({ maxLength: 4096 }));

const HttpAuthConfig = Type.Object(
  {
    type: enumOf(AUTH_TYPES, { type: 'string' }),
    token: Type.Optional(Type.String({ minLength: 1 })),
    username: Type.Optional(Type.String()),
    password: Type.Optional(Type.String()),
    header_name: Type.Optional(
      Type.String({
        pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$",
        description: 'Header carrying the key for `api_key_header`; defaults to `X-API-Key`',
      }),
    ),
    query_name: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Query parameter carrying the key for `api_key_query`; defaults to `api_key`',
      }),
    ),
    key: Type.Optional(Type.String({ minLength: 1 })),
  },
  {
    additionalProperties: false,
    allOf: [
      requireWhen('bearer', ['token']),
      requireWhen('basic', ['username', 'password']),
      requireWhen('api_key_header', ['key']),
      requireWhen('api_key_query', ['key']),
    ],
  },
);
export type HttpAuthConfig = Static<typeof HttpAuthConfig>;

/** `implementation_config` of an `http` tool. Strings may hold `{param}` placeholders. */
export const HTTP_TOOL_CONFIG_SCHEMA = Type.Object(
  {
    url: Type.String({
      pattern: '^https?://',
      maxLength: 2048,
      description: 'URL template; {param} placeholders are URL-encoded',
    }),
    method: Type.Optional(enumOf(HTTP_METHODS, { type: 'string', default: 'GET' })),
    headers: Type.Optional(stringMap),
    query: Type.Optional(stringMap),
    query_serialization: Type.Optional(
      mapOf(
        Type.Object(
          { style: enumOf(QUERY_STYLES, { type: 'string' }), explode: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        {
          description:
            'Per query entry that is exactly one {param}: how an array or object argument is sent (OpenAPI style/explode); without it, arrays and objects are sent as JSON',
        },
      ),
    ),
    body: Type.Optional(
      Type.Unknown({ description: 'JSON template; a string exactly "{param}" keeps the argument type' }),
    ),
    auth: Type.Optional(HttpAuthConfig),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TIMEOUT_MS })),
    max_response_bytes: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RESPONSE_BYTES })),
    parse_mode: Type.Optional(
      enumOf(PARSE_MODES, {
        type: 'string',
        description: 'How the body is turned into text for the model; detected from Content-Type when absent',
      }),
    ),
    response_fields: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
        maxItems: 50,
        description: 'Dotted paths kept from a JSON response, e.g. `current.temp_c`, `items[0].name`',
      }),
    ),
    allowed_domains: Type.Optional(Type.Array(domainPattern, { maxItems: 100 })),
    blocked_domains: Type.Optional(Type.Array(domainPattern, { maxItems: 100 })),
    retry: Type.Optional(
      Type.Object(
        {
          count: Type.Integer({ minimum: 0, maximum: MAX_RETRIES }),
          backoff_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000, default: 250 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type HttpToolConfig = Static<typeof HTTP_TOOL_CONFIG_SCHEMA>;
