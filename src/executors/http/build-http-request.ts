import { OutboundBlockedError } from '../../outbound/outbound-blocked-error';
import type { OutboundBody, OutboundRequest } from '../../outbound/outbound-request';
import { redactUrl, secretValuesIn } from '../../shared/secrets';
import { ToolExecutionError } from '../../shared/tool-errors';
import { domainRefusal } from './domain-pattern';
import type { HttpAuthConfig, HttpToolConfig } from './http-tool-config';
import {
  exactPlaceholder,
  placeholdersIn,
  renderJson,
  renderString,
  renderStringMap,
  renderUrl,
  urlAuthority,
  type TemplateParams,
} from './placeholder-template';
import { serializeQueryValue } from './serialize-query';

type BuiltHttpRequest = OutboundRequest & { headers: Record<string, string> };

export const DEFAULT_API_KEY_HEADER = 'X-API-Key';
export const DEFAULT_API_KEY_QUERY = 'api_key';

const originOf = (url: string): string => {
  try {
    return new URL(url).origin;
  } catch {
    throw new ToolExecutionError(
      `the URL is not valid after filling in the arguments: ${redactUrl(url).slice(0, 200)}`,
    );
  }
};

const hasAuth = (auth: HttpAuthConfig | undefined): auth is HttpAuthConfig => !!auth && auth.type !== 'none';

const renderBody = (template: unknown, params: TemplateParams): OutboundBody | undefined => {
  if (template === undefined) return undefined;
  if (typeof template === 'string' && exactPlaceholder(template) === null) return renderString(template, params);
  return renderJson(template, params) as OutboundBody | undefined;
};

const applyAuth = (auth: HttpAuthConfig, request: BuiltHttpRequest): void => {
  switch (auth.type) {
    case 'none':
      return;
    case 'bearer':
      request.headers.authorization = `Bearer ${auth.token ?? ''}`;
      return;
    case 'basic':
      request.headers.authorization = `Basic ${Buffer.from(`${auth.username ?? ''}:${auth.password ?? ''}`).toString('base64')}`;
      return;
    case 'api_key_header': {
      const name = (auth.header_name ?? DEFAULT_API_KEY_HEADER).toLowerCase();
      request.headers[name] = auth.key ?? '';
      request.sensitiveHeaders = [name];
      return;
    }
    case 'api_key_query': {
      const name = auth.query_name ?? DEFAULT_API_KEY_QUERY;
      request.query = { ...request.query, [name]: auth.key ?? '' };
      request.sensitiveQuery = [name];
      return;
    }
  }
};

/** Query entries with a `query_serialization` whose argument is given become name=value pairs of their own. */
const splitQuery = (config: HttpToolConfig, params: TemplateParams) => {
  const plain: Record<string, string> = {};
  const styled: [string, string][] = [];
  for (const [name, template] of Object.entries(config.query ?? {})) {
    const exact = exactPlaceholder(template);
    const serialization = config.query_serialization?.[name];
    if (exact === null || !serialization) plain[name] = template;
    else if (params[exact] !== undefined) styled.push(...serializeQueryValue(name, params[exact], serialization));
  }
  return { plain, styled };
};

const withQueryPairs = (url: string, pairs: readonly [string, string][]): string => {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return originOf(url);
  }
  for (const [name, value] of pairs) target.searchParams.append(name, value);
  return target.href;
};

/**
 * Turns an http tool's config and the model's arguments into one outbound request.
 * Auth is applied last so templated headers cannot replace it, and with auth the rendered URL
 * must keep the template's scheme, host and port.
 */
export const buildHttpRequest = (config: HttpToolConfig, params: TemplateParams): BuiltHttpRequest => {
  const url = renderUrl(config.url, params);
  const authority = urlAuthority(config.url);
  if (hasAuth(config.auth) && (placeholdersIn(authority).length > 0 || originOf(url) !== originOf(authority))) {
    throw new ToolExecutionError('this tool has auth, so its arguments may not change the scheme, host or port');
  }
  const headers = Object.fromEntries(
    Object.entries(renderStringMap(config.headers, params)).map(([name, value]) => [name.toLowerCase(), value]),
  );
  for (const [name, value] of Object.entries(headers)) {
    if (/[\r\n\0]/.test(value)) throw new ToolExecutionError(`header ${name} may not contain line breaks`);
  }
  const method = config.method ?? 'GET';
  const { plain, styled } = splitQuery(config, params);
  const request: BuiltHttpRequest = {
    method,
    url: styled.length > 0 ? withQueryPairs(url, styled) : url,
    headers,
    query: renderStringMap(plain, params),
    body: method === 'GET' || method === 'HEAD' ? undefined : renderBody(config.body, params),
    checkUrl: (target) => {
      const refusal = domainRefusal(target.hostname, config.allowed_domains, config.blocked_domains);
      if (refusal) throw new OutboundBlockedError('domain-policy', refusal);
    },
  };
  if (hasAuth(config.auth)) applyAuth(config.auth, request);
  return request;
};

/** The credential values a built request carries (headers, query, auth), to redact whatever the server echoes. */
export const secretsOf = (request: BuiltHttpRequest, auth: HttpAuthConfig | undefined): string[] => [
  ...secretValuesIn(request.headers, request.sensitiveHeaders),
  ...secretValuesIn(request.query, request.sensitiveQuery),
  ...[auth?.token, auth?.password, auth?.key].filter((value): value is string => !!value),
];
