const SEGMENT = /([^.[\]]+)|\[(\d+)\]/g;

/** Reads a dotted path like `items[0].name` out of parsed JSON; undefined when any step is missing. */
export const readPath = (data: unknown, path: string): unknown => {
  let current: unknown = data;
  for (const [, key, index] of path.matchAll(SEGMENT)) {
    if (current === null || typeof current !== 'object') return undefined;
    const step = index !== undefined ? Number(index) : key;
    if (Array.isArray(current) && typeof step === 'number') current = current[step];
    else if (!Array.isArray(current) && typeof step === 'string') current = (current as Record<string, unknown>)[step];
    else return undefined;
  }
  return current;
};

/** Keeps only the listed paths, keyed by path; a missing path is reported as null. */
export const pickFields = (data: unknown, paths: readonly string[]): Record<string, unknown> =>
  Object.fromEntries(paths.map((path) => [path, readPath(data, path) ?? null]));
