import { appendPointer } from '../json-schema/json-pointer';

/**
 * `{{inputs.city}}`, `{{llm-1.text}}`, `{{tool-1.data.items[0].name}}`: references between nodes; a JSON literal
 * after `??` is the value when the referenced one is missing (`{{tool-1.data.note ?? "none"}}`).
 */
const REFERENCE_SOURCE =
  '\\{\\{\\s*([A-Za-z0-9_-]+)((?:\\.[A-Za-z0-9_$-]+|\\[\\d+\\])*)\\s*' +
  '(?:\\?\\?\\s*("(?:[^"\\\\]|\\\\.)*"|-?\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?|true|false|null)\\s*)?\\}\\}';
const REFERENCE = new RegExp(REFERENCE_SOURCE, 'g');
const WHOLE_REFERENCE = new RegExp(`^${REFERENCE_SOURCE}$`);

export interface Reference {
  root: string;
  path: string[];
  text: string;
  /** JSON pointer of the string holding it, relative to the value searched. */
  pointer: string;
  /** The value given after `??`, when there is one. */
  fallback?: { value: unknown };
}

const splitPath = (path: string): string[] =>
  path.split(/\.|\[(\d+)\]/).filter((part): part is string => part !== undefined && part !== '');

function fallbackOf(literal: string | undefined): { value: unknown } | undefined {
  if (literal === undefined) return undefined;
  try {
    return { value: JSON.parse(literal) as unknown };
  } catch {
    // A string with an escape JSON does not know (`"\q"`): its characters as written.
    return { value: literal.slice(1, -1) };
  }
}

/** Every reference inside a value (strings anywhere in objects and arrays), with the pointer of its string. */
export function findReferences(value: unknown, pointer = ''): Reference[] {
  if (typeof value === 'string') {
    return [...value.matchAll(REFERENCE)].map((match) => {
      const fallback = fallbackOf(match[3]);
      return {
        root: match[1],
        path: splitPath(match[2] ?? ''),
        text: match[0],
        pointer,
        ...(fallback ? { fallback } : {}),
      };
    });
  }
  if (Array.isArray(value)) return value.flatMap((item, index) => findReferences(item, appendPointer(pointer, index)));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => findReferences(item, appendPointer(pointer, key)));
  }
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

function valueOf(scope: Scope, root: string, path: string | undefined, literal: string | undefined): unknown {
  const value = lookup(scope, root, splitPath(path ?? ''));
  return value === undefined ? fallbackOf(literal)?.value : value;
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
    if (whole) return valueOf(scope, whole[1], whole[2], whole[3]);
    return value.replace(REFERENCE, (_text, root: string, path: string, literal: string | undefined) =>
      asText(valueOf(scope, root, path, literal)),
    );
  }
  if (Array.isArray(value)) return value.map((item) => resolveReferences(item, scope));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveReferences(item, scope)]));
  }
  return value;
}

export const renderText = (template: unknown, scope: Scope): string => asText(resolveReferences(template, scope));
