import { isRecord } from './is-record';

/**
 * The items of a map node and the iterations of a loop node on the run page: folded live from `node.item` events
 * and read from the node's stored output (`items` / `iterations`) after a reload; the stored one wins.
 */

export interface NestedRunView {
  index: number;
  status: string;
  durationMs: number | null;
  /** The model tokens its nodes used; null when it says nothing of usage. */
  totalTokens: number | null;
  error: string | null;
}

export interface NestedRunList {
  /** `Items` for a map node, `Iterations` for a loop node. */
  title: 'Items' | 'Iterations';
  runs: NestedRunView[];
  /** How many items the map has in all (its output's `count`), when known: some may not have ended yet. */
  total: number | null;
}

const numberOf = (value: unknown): number | null => (typeof value === 'number' ? value : null);

/** One `node.item` event's data, or one entry of a stored `items`/`iterations` list; null when it has no index. */
export function toNestedRun(data: unknown): NestedRunView | null {
  if (!isRecord(data)) return null;
  const index = numberOf(data.index);
  if (index === null) return null;
  return {
    index,
    status: typeof data.status === 'string' ? data.status : 'unknown',
    durationMs: numberOf(data.duration_ms),
    totalTokens: isRecord(data.usage) ? numberOf(data.usage.total_tokens) : null,
    error: typeof data.error === 'string' ? data.error : null,
  };
}

/** Adds or replaces (a resumed item ends again) one run in a list kept in index order. */
export function putNestedRun(list: NestedRunView[], run: NestedRunView): void {
  const at = list.findIndex((entry) => entry.index >= run.index);
  if (at === -1) list.push(run);
  else if (list[at].index === run.index) list[at] = run;
  else list.splice(at, 0, run);
}

/** The list a map or loop node shows: what the events said, then what its stored output says; null for other nodes. */
export function nestedRunsOf(type: string, live: readonly NestedRunView[], output: unknown): NestedRunList | null {
  if (type !== 'map' && type !== 'loop') return null;
  const runs = [...live];
  const stored = isRecord(output) ? output[type === 'map' ? 'items' : 'iterations'] : undefined;
  if (Array.isArray(stored)) {
    for (const entry of stored) {
      const run = toNestedRun(entry);
      if (run) putNestedRun(runs, run);
    }
  }
  const count = type === 'map' && isRecord(output) ? numberOf(output.count) : null;
  return { title: type === 'map' ? 'Items' : 'Iterations', runs, total: count };
}

/** `Items (3)`, or `Items (2 of 3)` while some have not ended. */
export function nestedRunsTitle(list: NestedRunList): string {
  const ended = list.runs.length;
  return list.total !== null && list.total !== ended
    ? `${list.title} (${ended} of ${list.total})`
    : `${list.title} (${ended})`;
}
