/** `{{inputs.city}}`, `{{llm-1.output}}`, `{{tool-1.data.items[0].name}}`: references between nodes. */
const REFERENCE = /\{\{\s*([A-Za-z0-9_-]+)((?:\.[A-Za-z0-9_$-]+|\[\d+\])*)\s*\}\}/g;
const WHOLE_REFERENCE = /^\{\{\s*([A-Za-z0-9_-]+)((?:\.[A-Za-z0-9_$-]+|\[\d+\])*)\s*\}\}$/;

export interface Reference {
  root: string;
  path: string[];
  text: string;
}

const splitPath = (path: string): string[] =>
  path.split(/\.|\[(\d+)\]/).filter((part): part is string => part !== undefined && part !== '');

/** Every reference inside a value (strings anywhere in objects and arrays). */
export function findReferences(value: unknown): Reference[] {
  if (typeof value === 'string') {
    return [...value.matchAll(REFERENCE)].map((match) => ({
      root: match[1],
      path: splitPath(match[2] ?? ''),
      text: match[0],
    }));
  }
  if (Array.isArray(value)) return value.flatMap(findReferences);
  if (value && typeof value === 'object') return Object.values(value).flatMap(findReferences);
  return [];
}

export type Scope = Record<string, unknown>;

function lookup(scope: Scope, root: string, path: string[]): unknown {
  let node: unknown = scope[root];
  for (const key of path) {
    if (node === null || node === undefined) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

const asText = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);

/**
 * Replaces references with values from the scope. A string that is one whole reference keeps the
 * value's type (number, object …); references inside text are rendered as text (objects as JSON).
 */
export function resolveReferences(value: unknown, scope: Scope): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE_REFERENCE.exec(value);
    if (whole) return lookup(scope, whole[1], splitPath(whole[2] ?? ''));
    return value.replace(REFERENCE, (_text, root: string, path: string) =>
      asText(lookup(scope, root, splitPath(path))),
    );
  }
  if (Array.isArray(value)) return value.map((item) => resolveReferences(item, scope));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveReferences(item, scope)]));
  }
  return value;
}

export const renderText = (template: unknown, scope: Scope): string => asText(resolveReferences(template, scope));
