import { appendPointer } from '../json-schema/json-pointer';
import { isRecord } from '../shared/is-record';
import { ELLIPSIS, truncate } from '../shared/truncate';

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

const PREVIEW_CHARS = 200;

/** A reference whose value is missing and that gives no default: the node holding it fails with this. */
export class MissingReferenceError extends Error {
  constructor(
    readonly reference: string,
    reason: string,
  ) {
    super(`${reference} has no value: ${reason}; give a default with {{… ?? "value"}} where it may be missing`);
    this.name = 'MissingReferenceError';
  }
}

const preview = (value: unknown): string =>
  value === undefined ? 'missing' : truncate(JSON.stringify(value), PREVIEW_CHARS, ELLIPSIS);

/** `absent`: a node whose branch was not taken, or a run input that was not given (the inputs schema let it out). */
type Lookup = { found: true; value: unknown } | { found: false; reason: string; absent?: boolean };

/** One step into a value: own fields of objects, items of arrays, `length` of arrays and strings. */
function child(value: unknown, key: string): { found: boolean; value?: unknown } {
  if (typeof value === 'string' || Array.isArray(value)) {
    if (key === 'length') return { found: true, value: value.length };
    if (Array.isArray(value) && /^\d+$/.test(key) && Number(key) < value.length) {
      return { found: true, value: value[Number(key)] };
    }
    return { found: false };
  }
  if (isRecord(value) && Object.hasOwn(value, key) && value[key] !== undefined)
    return { found: true, value: value[key] };
  return { found: false };
}

function lookup(scope: Scope, root: string, path: string[]): Lookup {
  if (!Object.hasOwn(scope, root)) {
    return { found: false, reason: `node "${root}" did not run (its branch was not taken)`, absent: true };
  }
  let value: unknown = scope[root];
  for (const [index, key] of path.entries()) {
    const next = child(value, key);
    if (!next.found && root === 'inputs' && index === 0 && isRecord(value)) {
      return { found: false, reason: `the run was given no input "${key}"`, absent: true };
    }
    if (!next.found) {
      const at = [root, ...path.slice(0, index)].join('.');
      return { found: false, reason: `${at} is ${preview(value)}, which has no "${key}"` };
    }
    value = next.value;
  }
  return { found: true, value };
}

function valueOf(
  scope: Scope,
  text: string,
  match: { root: string; path?: string; literal?: string },
  whole: boolean,
): unknown {
  const result = lookup(scope, match.root, splitPath(match.path ?? ''));
  if (result.found) return result.value;
  const fallback = fallbackOf(match.literal);
  if (fallback) return fallback.value;
  // A whole value from a branch that was not taken, or an optional input not given, is left out (an output, an
  // argument, a field such as `messages`): a join names both branches; the field then takes its default.
  if (whole && result.absent) return undefined;
  throw new MissingReferenceError(text, result.reason);
}

const asText = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);

/**
 * Replaces references with values from the scope. A string that is one whole reference keeps the
 * value's type (number, object …); references inside text are rendered as text (objects as JSON, null as
 * nothing). A reference to a value that is missing takes its `?? default`, else throws MissingReferenceError;
 * only a whole reference to a node whose branch was not taken, or to a run input that was not given, is undefined
 * (the value is left out).
 */
export function resolveReferences(value: unknown, scope: Scope): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE_REFERENCE.exec(value);
    if (whole) return valueOf(scope, whole[0], { root: whole[1], path: whole[2], literal: whole[3] }, true);
    return value.replace(REFERENCE, (text, root: string, path: string, literal: string | undefined) =>
      asText(valueOf(scope, text, { root, path, literal }, false)),
    );
  }
  if (Array.isArray(value)) return value.map((item) => resolveReferences(item, scope));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveReferences(item, scope)]));
  }
  return value;
}

export const renderText = (template: unknown, scope: Scope): string => asText(resolveReferences(template, scope));
