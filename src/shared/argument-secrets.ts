import { setOwn } from './set-own';
import { redactUrl, SECRET_MASK } from './secrets';

/**
 * Which arguments of a tool call are credentials. Argument names are the tool author's vocabulary (`author`,
 * `keyword`, `sort_key`), so they are not matched by substring as header and query names are: an argument is a
 * credential when the tool's schema declares it one (`format: "password"`, `writeOnly: true` or
 * `x-secret: true`) or when one of the words of its name is a credential word (`password`, `api_key`, `apiKey`,
 * `access_token`, …; words are split on `_`, `-`, `.`, spaces and case changes). Everything beneath a
 * credential argument is masked too.
 */

const CREDENTIAL_WORDS: ReadonlySet<string> = new Set([
  'apikey',
  'auth',
  'authorization',
  'bearer',
  'cookie',
  'cookies',
  'credential',
  'credentials',
  'jwt',
  'passcode',
  'passphrase',
  'passwd',
  'password',
  'pwd',
  'secret',
  'sessionid',
  'signature',
  'token',
]);
/** Two words that name a credential together, though neither does alone (`sort_key` is no credential). */
const CREDENTIAL_PAIRS: ReadonlySet<string> = new Set([
  'access key',
  'api key',
  'client key',
  'encryption key',
  'private key',
  'secret key',
  'session id',
  'session key',
  'signing key',
]);

/** `apiKey`, `API_KEY`, `X-Api-Key`, `APIKey` → `api`, `key` (lower case). */
export const nameWords = (name: string): string[] =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');

/** Whether an argument name is a credential by its words (never by a substring: `author` is not `auth`). */
export const isCredentialArgumentName = (name: string): boolean => {
  const words = nameWords(name);
  return words.some(
    (word, index) => CREDENTIAL_WORDS.has(word) || (index > 0 && CREDENTIAL_PAIRS.has(`${words[index - 1]} ${word}`)),
  );
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const declaresSecretItself = (schema: Record<string, unknown>): boolean =>
  schema.format === 'password' || schema.writeOnly === true || schema['x-secret'] === true;

/** Whether a (sub)schema declares its value a credential, itself or in one of its allOf/anyOf/oneOf branches. */
export const declaresSecret = (schema: unknown): boolean =>
  isObject(schema) &&
  (declaresSecretItself(schema) ||
    ['allOf', 'anyOf', 'oneOf'].some((keyword) => {
      const branches = schema[keyword];
      return Array.isArray(branches) && branches.some((branch) => isObject(branch) && declaresSecretItself(branch));
    }));

const NO_NAMES: ReadonlySet<string> = new Set();

/**
 * The property names that any of `schemas` (tool parameter schemas) declares secret, at any depth. Names, not
 * paths: masking works on names, also in JSON text that arrives in pieces. Iterative, so any depth is safe.
 */
export const secretArgumentNames = (...schemas: unknown[]): ReadonlySet<string> => {
  const names = new Set<string>();
  const seen = new Set<object>();
  const stack: unknown[] = [...schemas];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    const properties = isObject(node) ? node.properties : undefined;
    if (isObject(properties)) {
      for (const [name, property] of Object.entries(properties)) if (declaresSecret(property)) names.add(name);
    }
    for (const child of Object.values(node)) if (typeof child === 'object' && child !== null) stack.push(child);
  }
  return names.size === 0 ? NO_NAMES : names;
};

/** Whether the argument `name` is a credential, given the names its tool's schema declares secret. */
export const isSecretArgument = (name: string, declared: ReadonlySet<string> = NO_NAMES): boolean =>
  declared.has(name) || isCredentialArgumentName(name);

const maskedString = (value: string, secret: boolean): string => {
  if (secret) return value === '' ? value : SECRET_MASK;
  return /^https?:\/\//i.test(value) ? redactUrl(value) : value;
};

/**
 * A copy of a call's arguments (any JSON value) with every string under a credential argument (see above)
 * replaced by SECRET_MASK, and credential query values inside URLs masked. Iterative: any depth is safe.
 */
export const maskArguments = <T>(value: T, declared: ReadonlySet<string> = NO_NAMES): T => {
  type Task = { value: unknown; secret: boolean; put: (copy: unknown) => void };
  let result: unknown;
  const stack: Task[] = [{ value, secret: false, put: (copy) => (result = copy) }];
  while (stack.length > 0) {
    const task = stack.pop()!;
    const item = task.value;
    if (typeof item === 'string') task.put(maskedString(item, task.secret));
    else if (Array.isArray(item)) {
      const copy: unknown[] = new Array<unknown>(item.length);
      task.put(copy);
      item.forEach((entry, index) =>
        stack.push({ value: entry, secret: task.secret, put: (masked) => (copy[index] = masked) }),
      );
    } else if (item !== null && typeof item === 'object') {
      const copy: Record<string, unknown> = {};
      task.put(copy);
      // Pushed last to first, so the copy defines its keys in the original order.
      for (const [name, entry] of Object.entries(item).reverse()) {
        const secret = task.secret || isSecretArgument(name, declared);
        stack.push({ value: entry, secret, put: (masked) => setOwn(copy, name, masked) });
      }
    } else task.put(item);
  }
  return result as T;
};

/**
 * `next` (arguments a person edited after seeing them masked) with every SECRET_MASK under a credential
 * argument replaced by the value `previous` held there: sending the mask back keeps the model's value.
 */
export const restoreMaskedArguments = <T>(next: T, previous: unknown, declared: ReadonlySet<string> = NO_NAMES): T => {
  const restore = (value: unknown, before: unknown, secret: boolean): unknown => {
    if (typeof value === 'string' && typeof before === 'string') {
      if (value === SECRET_MASK && secret) return before;
      return value !== before && /^https?:\/\//i.test(value) && value === redactUrl(before) ? before : value;
    }
    if (Array.isArray(value)) {
      return value.map((item, index) => restore(item, Array.isArray(before) ? before[index] : undefined, secret));
    }
    if (!isObject(value)) return value;
    const old = isObject(before) ? before : {};
    const merged: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) {
      const oldItem = Object.hasOwn(old, name) ? old[name] : undefined;
      setOwn(merged, name, restore(item, oldItem, secret || isSecretArgument(name, declared)));
    }
    return merged;
  };
  return restore(next, previous, false) as T;
};
