import { setOwn } from './set-own';

/**
 * The one secret model of the service. A name (header, query parameter, config or argument key) carries a
 * credential when it is Authorization, Proxy-Authorization or Cookie, or contains one of SECRET_WORDS.
 * Such values are shown as SECRET_MASK, sending the mask back keeps the stored value, and they are dropped
 * from requests that a redirect sends to another origin.
 */

/** What a secret is shown as; sending it back unchanged on PUT/PATCH keeps the stored value. */
export const SECRET_MASK = '********';

const SECRET_WORDS = ['token', 'secret', 'key', 'password', 'auth', 'session', 'signature', 'cookie'];
/** Values shorter than this are not searched for in text: they would match ordinary words. */
const MIN_REDACTED_LENGTH = 4;
// `{param}` placeholders of http tool templates hold no secret of their own: a value made only of them is shown.
const PLACEHOLDER = /\{[A-Za-z_][A-Za-z0-9_]*\}/g;
const URL_START = /^https?:\/\//i;

type Json = unknown;

/** Whether a header, query parameter or key name carries a credential (case-insensitive). */
export const isSecretName = (name: string): boolean => {
  const lower = name.toLowerCase();
  return SECRET_WORDS.some((word) => lower.includes(word));
};

// An auth scheme in front of a placeholder (`Bearer {token}`) is no secret either.
const SCHEME_ONLY = /^\s*(bearer|basic|token|bot|digest|apikey)?\s*$/i;

const isTemplateOnly = (value: string): boolean => {
  const rest = value.replace(PLACEHOLDER, '');
  return rest.trim() === '' || (rest !== value && SCHEME_ONLY.test(rest));
};

const decodeName = (name: string): string => {
  if (!name.includes('%') && !name.includes('+')) return name;
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
};

/** Calls `visit` with each `name=value` pair of the URL's query and puts back what it returns. */
const mapQueryPairs = (url: string, visit: (name: string, value: string, pair: string) => string): string => {
  const queryStart = url.indexOf('?');
  if (queryStart < 0) return url;
  const hashStart = url.indexOf('#', queryStart);
  const end = hashStart < 0 ? url.length : hashStart;
  const query = url
    .slice(queryStart + 1, end)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      return equals < 0 ? pair : visit(decodeName(pair.slice(0, equals)), pair.slice(equals + 1), pair);
    })
    .join('&');
  return `${url.slice(0, queryStart + 1)}${query}${url.slice(end)}`;
};

const holdsLiteral = (value: string): boolean => value !== '' && !isTemplateOnly(value);

const NO_NAMES: ReadonlySet<string> = new Set();

/**
 * The URL (or URL template) with the values of credential-named query parameters, any `extraNames`, and the
 * password of a `user:password@` part replaced by SECRET_MASK. Works on the text, so templates keep their form.
 */
export const redactUrl = (url: string, extraNames: readonly string[] = []): string => {
  const extra = extraNames.length === 0 ? NO_NAMES : new Set(extraNames.map((name) => name.toLowerCase()));
  const withoutPassword = url.includes('@')
    ? url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):[^/?#@]*@/i, `$1:${SECRET_MASK}@`)
    : url;
  return mapQueryPairs(withoutPassword, (name, value, pair) =>
    (isSecretName(name) || (extra.size > 0 && extra.has(name.toLowerCase()))) && holdsLiteral(value)
      ? `${pair.slice(0, pair.length - value.length)}${SECRET_MASK}`
      : pair,
  );
};

/** Names of the credential-named query parameters that `url` (a URL or URL template) gives a literal value. */
export const literalSecretsInUrl = (url: string): string[] => {
  const names: string[] = [];
  mapQueryPairs(url, (name, value, pair) => {
    if (isSecretName(name) && holdsLiteral(value)) names.push(name);
    return pair;
  });
  return names;
};

const maskValue = (key: string | null, value: Json): Json => {
  if (typeof value === 'string') {
    if (key !== null && isSecretName(key) && holdsLiteral(value)) return SECRET_MASK;
    return URL_START.test(value) ? redactUrl(value) : value;
  }
  if (Array.isArray(value)) return value.map((item) => maskValue(null, item));
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, Json> = {};
    for (const [name, item] of Object.entries(value)) setOwn(copy, name, maskValue(name, item));
    return copy;
  }
  return value;
};

/**
 * A copy of a JSON value (a tool config, a call's arguments) with every string under a credential-named key
 * replaced by SECRET_MASK and credential query values inside URLs masked.
 */
export const maskSecrets = <T>(value: T): T => maskValue(null, value) as T;

const restoreValue = (key: string | null, next: Json, previous: Json): Json => {
  if (typeof next === 'string') {
    if (typeof previous !== 'string') return next;
    if (next === SECRET_MASK && key !== null && isSecretName(key)) return previous;
    return URL_START.test(next) && next !== previous && next === redactUrl(previous) ? previous : next;
  }
  if (Array.isArray(next)) {
    return next.map((item, index) => restoreValue(null, item, Array.isArray(previous) ? previous[index] : undefined));
  }
  if (next !== null && typeof next === 'object') {
    const before = previous !== null && typeof previous === 'object' ? (previous as Record<string, Json>) : {};
    const merged: Record<string, Json> = {};
    for (const [name, item] of Object.entries(next)) {
      setOwn(merged, name, restoreValue(name, item, Object.hasOwn(before, name) ? before[name] : undefined));
    }
    return merged;
  }
  return next;
};

/**
 * A copy of a JSON object without the values that are exactly SECRET_MASK (a secret a bundle or a GET left
 * masked: the mask itself must never be stored as the secret), and the paths of what was dropped
 * (`auth.token`, `headers.Authorization`, `items[0].key`).
 */
export const dropMaskedValues = (
  value: Record<string, unknown>,
): { value: Record<string, unknown>; dropped: string[] } => {
  const dropped: string[] = [];
  const drop = (item: Json, path: string): Json => {
    if (Array.isArray(item)) return item.map((entry, index) => drop(entry, `${path}[${index}]`));
    if (item === null || typeof item !== 'object') return item;
    const copy: Record<string, Json> = {};
    for (const [name, entry] of Object.entries(item)) {
      const at = path === '' ? name : `${path}.${name}`;
      if (entry === SECRET_MASK) dropped.push(at);
      else setOwn(copy, name, drop(entry, at));
    }
    return copy;
  };
  return { value: drop(value, '') as Record<string, unknown>, dropped };
};

/** `next` with every masked value a client sent back unchanged replaced by the stored one from `previous`. */
export const restoreMaskedSecrets = <T>(next: T, previous: unknown): T => restoreValue(null, next, previous) as T;

/**
 * The values of the credential-named entries (plus `extraNames`) of a header or query map, and of a URL's
 * query; for `Scheme credential` values the credential alone too. What a request sends, to redact echoes of it.
 */
export const secretValuesIn = (
  entries: Readonly<Record<string, unknown>> | string | undefined,
  extraNames: readonly string[] = [],
): string[] => {
  const extra = new Set(extraNames.map((name) => name.toLowerCase()));
  let pairs: Array<[string, unknown]> = [];
  if (typeof entries === 'string') {
    mapQueryPairs(entries, (name, value, pair) => {
      pairs.push([name, decodeName(value)]);
      return pair;
    });
  } else pairs = Object.entries(entries ?? {});
  return pairs
    .filter(([name, value]) => value !== undefined && (isSecretName(name) || extra.has(name.toLowerCase())))
    .flatMap(([, value]) => [String(value), String(value).replace(/^\S+\s+/, '')]);
};

const formsOf = (secret: string): string[] => [
  secret,
  encodeURIComponent(secret),
  new URLSearchParams({ s: secret }).toString().slice(2),
];

const redactText = (text: string, forms: readonly string[]): string =>
  forms.reduce((result, form) => (result.includes(form) ? result.split(form).join(SECRET_MASK) : result), text);

const redactIn = (value: Json, forms: readonly string[]): Json => {
  if (typeof value === 'string') return redactText(value, forms);
  if (Array.isArray(value)) return value.map((item) => redactIn(item, forms));
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, Json> = {};
    for (const [name, item] of Object.entries(value)) setOwn(copy, name, redactIn(item, forms));
    return copy;
  }
  return value;
};

/**
 * A copy of `value` in which every occurrence of the given secret values (as sent, and URL-encoded) inside any
 * string is replaced by SECRET_MASK: for answers that may echo what was sent (final URLs, error excerpts).
 */
export const redactSecretValues = <T>(value: T, secrets: readonly string[]): T => {
  const forms = [...new Set(secrets.filter((secret) => secret.length >= MIN_REDACTED_LENGTH).flatMap(formsOf))]
    // Longest first, so a value that contains another is replaced whole.
    .sort((a, b) => b.length - a.length);
  return forms.length === 0 ? value : (redactIn(value, forms) as T);
};
