import { createHash } from 'node:crypto';

const hashes = new WeakMap<object, string>();

/**
 * A short hash of a value's JSON (16 hex digits of SHA-256), computed once per object: a cache key for objects that
 * are not changed once built (tool schemas).
 */
export function jsonHash(value: object): string {
  let hash = hashes.get(value);
  if (hash === undefined) {
    hash = createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
    hashes.set(value, hash);
  }
  return hash;
}
