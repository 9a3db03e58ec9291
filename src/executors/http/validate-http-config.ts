import type { StoredTool } from '../executor';
import type { ConfigProblem } from '../../tools/tool-implementations';
import { appendPointer } from '../../json-schema/json-pointer';
import type { HttpToolConfig } from './http-tool-config';
import { literalSecretsInUrl } from '../../shared/secrets';
import { exactPlaceholder, placeholdersIn, placeholdersInJson, urlAuthority } from './placeholder-template';

const parameterNames = (tool: Pick<StoredTool, 'functionSchema'>): Set<string> => {
  const properties = tool.functionSchema.function.parameters.properties;
  return new Set(properties && typeof properties === 'object' ? Object.keys(properties) : []);
};

/** Checks an http tool beyond its JSON Schema: placeholders name real parameters; with auth, the host is fixed. */
export const validateHttpConfig = (
  config: HttpToolConfig,
  tool: Pick<StoredTool, 'name' | 'functionSchema'>,
): ConfigProblem[] => {
  const known = parameterNames(tool);
  const used = [
    ...placeholdersIn(config.url).map((name) => ({ path: '/url', name })),
    ...Object.entries(config.headers ?? {}).flatMap(([header, value]) =>
      placeholdersIn(value).map((name) => ({ path: appendPointer('/headers', header), name })),
    ),
    ...Object.entries(config.query ?? {}).flatMap(([key, value]) =>
      placeholdersIn(value).map((name) => ({ path: appendPointer('/query', key), name })),
    ),
    ...placeholdersInJson(config.body, '/body'),
  ];
  const problems: ConfigProblem[] = used
    .filter(({ name }) => !known.has(name))
    .map(({ path, name }) => ({ path, message: `placeholder {${name}} does not name a parameter of ${tool.name}` }));

  for (const name of Object.keys(config.query_serialization ?? {})) {
    const template = config.query?.[name];
    if (template === undefined || exactPlaceholder(template) === null) {
      problems.push({
        path: appendPointer('/query_serialization', name),
        message: `"${name}" must be a "query" entry that is exactly one {param}`,
      });
    }
  }
  problems.push(...urlCredentialProblems(config.url));
  const authority = urlAuthority(config.url);
  if (!authority) problems.push({ path: '/url', message: 'url must start with http:// or https:// and a host' });
  if (config.auth && config.auth.type !== 'none' && placeholdersIn(authority).length > 0) {
    problems.push({
      path: '/url',
      message:
        'when a tool has auth, its host is fixed by the config: placeholders may not change the scheme, host or port, so the model cannot send credentials elsewhere',
    });
  }
  return problems;
};

/** Credentials written into the URL would be stored and shown as plain text; `auth` and `query` keep them secret. */
const urlCredentialProblems = (url: string): ConfigProblem[] => {
  const problems = literalSecretsInUrl(url).map((name) => ({
    path: '/url',
    message: `the URL carries the credential "${name}" in its query; put it in "auth" (type "api_key_query", query_name "${name}") or in "query", where it is stored as a secret and masked`,
  }));
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url)) {
    problems.push({
      path: '/url',
      message: 'the URL carries credentials before its host (user:password@); put them in "auth" (type "basic")',
    });
  }
  return problems;
};
