/**
 * Sets `key` on `target` as an own enumerable data property, as JSON.parse would: a key named `__proto__` stays
 * data instead of replacing the prototype. Plain assignment otherwise, several times cheaper than defineProperty
 * on the copies the secret masks make of every recorded model request.
 */
export const setOwn = <T>(target: Record<string, T>, key: string, value: T): void => {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
};
