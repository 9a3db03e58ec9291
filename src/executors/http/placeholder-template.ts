import { ToolExecutionError } from '../../shared/tool-errors';
import { appendPointer } from '../../json-schema/json-pointer';

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const EXACT_PLACEHOLDER = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

export type TemplateParams = Readonly<Record<string, unknown>>;

/** Names of the `{param}` placeholders in a string. */
export const placeholdersIn = (template: string): string[] =>
  [...template.matchAll(PLACEHOLDER)].map((match) => match[1]);

/** The parameter name when the whole string is one placeholder, else null. */
export const exactPlaceholder = (template: string): string | null => EXACT_PLACEHOLDER.exec(template)?.[1] ?? null;

export const stringifyValue = (value: unknown): string => {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
};

/** Replaces every placeholder; `encode` escapes values for where they land (e.g. a URL). */
export const renderString = (
  template: string,
  params: TemplateParams,
  encode: (value: string) => string = (value) => value,
): string => template.replace(PLACEHOLDER, (_match, name: string) => encode(stringifyValue(params[name])));

/**
 * Renders a string map (headers, query). An entry that is exactly one placeholder is left out
 * when the model did not supply that argument.
 */
export const renderStringMap = (
  templates: Readonly<Record<string, string>> | undefined,
  params: TemplateParams,
): Record<string, string> => {
  const rendered: Record<string, string> = {};
  for (const [name, template] of Object.entries(templates ?? {})) {
    const exact = exactPlaceholder(template);
    if (exact !== null && params[exact] === undefined) continue;
    rendered[name] = renderString(template, params);
  }
  return rendered;
};

/** Renders a JSON body template: exact placeholders keep the argument's JSON type; missing ones are dropped. */
export const renderJson = (template: unknown, params: TemplateParams): unknown => {
  if (typeof template === 'string') {
    const exact = exactPlaceholder(template);
    return exact !== null ? params[exact] : renderString(template, params);
  }
  if (Array.isArray(template)) return template.map((item) => renderJson(item, params) ?? null);
  if (template !== null && typeof template === 'object') {
    const rendered: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(template)) {
      const item = renderJson(value, params);
      if (item !== undefined) rendered[key] = item;
    }
    return rendered;
  }
  return template;
};

/** Every placeholder in a JSON template, with the JSON pointer (below `base`) of the string holding it. */
export const placeholdersInJson = (template: unknown, base: string): { path: string; name: string }[] => {
  if (typeof template === 'string') return placeholdersIn(template).map((name) => ({ path: base, name }));
  if (template === null || typeof template !== 'object') return [];
  return Object.entries(template).flatMap(([key, value]) => placeholdersInJson(value, appendPointer(base, key)));
};

const AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/** The `scheme://host:port` part of a URL template, as written. */
export const urlAuthority = (template: string): string => AUTHORITY.exec(template)?.[0] ?? '';

/**
 * Renders a URL template: values are percent-encoded so they cannot add `/`, `?` or `#`,
 * and a value that would make a `.`/`..` path segment is refused.
 */
export const renderUrl = (template: string, params: TemplateParams): string => {
  const rendered = renderString(template, params, encodeURIComponent);
  const path = rendered.slice(urlAuthority(rendered).length).split(/[?#]/)[0];
  if (path.split('/').some((segment) => segment === '.' || segment === '..')) {
    throw new ToolExecutionError('parameter values may not form "." or ".." path segments');
  }
  return rendered;
};
