import { isJson, decodeText } from '../http/response-text';
import type { OutboundBody } from '../../outbound/outbound-request';
import { redactSecretValues, secretValuesIn } from '../../shared/secrets';
import { defineBuiltin } from './builtin-tool';
import { parseJsonWithin } from '../../shared/json-depth';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
const SHOWN_HEADERS = [
  'content-type',
  'content-length',
  'location',
  'retry-after',
  'etag',
  'last-modified',
  'cache-control',
  'www-authenticate',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
];

export interface HttpRequestParams {
  method?: (typeof METHODS)[number];
  url: string;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
  body?: OutboundBody;
}

const parseBody = (text: string, contentType: string | undefined): unknown => {
  if (!isJson(contentType)) return text;
  try {
    return parseJsonWithin(text);
  } catch {
    return text;
  }
};

/** A raw HTTP request to a public URL; the answer comes back whatever its status. */
export const httpRequest = defineBuiltin<HttpRequestParams>({
  name: 'http_request',
  category: 'web',
  description:
    'Send an HTTP request to a public http(s) URL and get back the status, the main response headers and the body (parsed JSON when the response is JSON, otherwise text). Non-2xx statuses are returned, not raised. Private, loopback and cloud-metadata addresses are refused.',
  effect: 'mutating',
  timeoutMs: 60_000,
  parameters: {
    type: 'object',
    additionalProperties: false,
    required: ['url'],
    properties: {
      method: { type: 'string', enum: [...METHODS], default: 'GET', description: 'HTTP method; defaults to GET.' },
      url: {
        type: 'string',
        minLength: 1,
        maxLength: 4096,
        description: 'Absolute http:// or https:// URL, e.g. "https://api.example.com/v1/items".',
      },
      headers: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description: 'Request headers, e.g. {"Accept": "application/json"}. Host and framing headers are ignored.',
      },
      query: {
        type: 'object',
        additionalProperties: { type: ['string', 'number', 'boolean'] },
        description: 'Query-string parameters appended to the URL (values are URL-encoded).',
      },
      body: {
        type: ['string', 'object', 'array'],
        description:
          'Request body: an object or array is sent as JSON, a string as text/plain unless a Content-Type header says otherwise. Ignored for GET and HEAD.',
      },
    },
  },
  async execute(params, context, env) {
    const method = params.method ?? 'GET';
    const response = await env.outbound.request({
      method,
      url: params.url,
      headers: params.headers,
      query: params.query,
      body: method === 'GET' || method === 'HEAD' ? undefined : params.body,
      signal: context.signal,
    });
    const contentType = response.headers['content-type'];
    const text = decodeText(response.body, contentType);
    const headers = Object.fromEntries(
      SHOWN_HEADERS.filter((name) => response.headers[name] !== undefined).map((name) => [
        name,
        response.headers[name],
      ]),
    );
    // The whole body: the node's max_tool_result_tokens decides what the model sees, read_tool_result the rest.
    const summary = {
      status: response.status,
      status_text: response.statusText,
      final_url: response.finalUrl,
      headers,
      body: parseBody(text, contentType),
    };
    // Credentials it was given never come back, even when the server echoes the request.
    const sent = [...secretValuesIn(params.headers), ...secretValuesIn(params.query), ...secretValuesIn(params.url)];
    return redactSecretValues(
      {
        response: JSON.stringify(summary),
        data: summary,
        metadata: { status_code: response.status, response_bytes: response.bytes, final_url: response.finalUrl },
      },
      sent,
    );
  },
});
