/** How far `shrinkJson` shortens a value: items per array, characters per string, keys per object, depth. */
export interface ShrinkLimits {
  items: number;
  chars: number;
  keys: number;
  depth: number;
}

/** What was left out, per JSON path, for the note that tells the model. */
export interface ShrinkReport {
  /** `$.items`: kept 3 of 40000 items. */
  arrays: Array<{ path: string; kept: number; total: number }>;
  strings: number;
  objects: number;
}

/**
 * A smaller copy of a parsed JSON value that keeps its shape: every object keeps its first `keys` keys, every
 * array its first `items` items followed by a string saying how many were dropped, strings their first `chars`
 * characters, and anything deeper than `depth` becomes a one-line summary. Only kept parts are visited, so a
 * huge value costs no more than its shortened copy.
 */
export function shrinkJson(value: unknown, limits: ShrinkLimits): { value: unknown; report: ShrinkReport } {
  const report: ShrinkReport = { arrays: [], strings: 0, objects: 0 };
  return { value: shrink(value, limits, '$', 0, report), report };
}

function shrink(value: unknown, limits: ShrinkLimits, path: string, depth: number, report: ShrinkReport): unknown {
  if (typeof value === 'string') {
    if (value.length <= limits.chars) return value;
    report.strings += 1;
    return `${value.slice(0, limits.chars)}… [${value.length - limits.chars} more characters]`;
  }
  if (Array.isArray(value)) {
    if (depth >= limits.depth && value.length > 0) {
      report.arrays.push({ path, kept: 0, total: value.length });
      return `[array of ${value.length} items]`;
    }
    const kept = value
      .slice(0, limits.items)
      .map((item, index) => shrink(item, limits, `${path}[${index}]`, depth + 1, report));
    if (value.length <= limits.items) return kept;
    report.arrays.push({ path, kept: limits.items, total: value.length });
    return [...kept, `… ${value.length - limits.items} more items`];
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (depth >= limits.depth && entries.length > 0) {
      report.objects += 1;
      return `{object with ${entries.length} keys: ${entries
        .slice(0, 5)
        .map(([key]) => key)
        .join(', ')}${entries.length > 5 ? ', …' : ''}}`;
    }
    const result: Record<string, unknown> = {};
    for (const [key, item] of entries.slice(0, limits.keys)) {
      result[key] = shrink(item, limits, `${path}.${key}`, depth + 1, report);
    }
    if (entries.length > limits.keys) {
      report.objects += 1;
      result['…'] = `${entries.length - limits.keys} more keys`;
    }
    return result;
  }
  return value;
}
