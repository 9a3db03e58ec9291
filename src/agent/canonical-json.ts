const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((key) => [key, sortKeys(record[key])]),
  );
};

/** JSON with object keys sorted at every depth, so equal values give equal strings. */
export const canonicalJson = (value: unknown): string => JSON.stringify(sortKeys(value)) ?? 'null';

/** Canonical form of raw tool arguments; text that is not JSON is compared as trimmed text. */
export const canonicalArguments = (raw: string): string => {
  const text = raw.trim();
  if (text === '') return '{}';
  try {
    return canonicalJson(JSON.parse(text));
  } catch {
    return text;
  }
};
