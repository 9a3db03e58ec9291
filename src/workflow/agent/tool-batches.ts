export interface ToolBatch<T> {
  concurrent: boolean;
  items: T[];
}

/** Groups consecutive concurrent-safe items into one batch; every other item is a batch of its own. */
export const toToolBatches = <T>(items: readonly T[], isConcurrent: (item: T) => boolean): ToolBatch<T>[] => {
  const batches: ToolBatch<T>[] = [];
  for (const item of items) {
    const concurrent = isConcurrent(item);
    const last = batches.at(-1);
    if (concurrent && last?.concurrent) last.items.push(item);
    else batches.push({ concurrent, items: [item] });
  }
  return batches;
};

/**
 * Runs items batch after batch: a concurrent batch all at once, the others one at a time.
 * Results come back in item order whatever order they finished in.
 */
export const runToolBatches = async <T, R>(
  items: readonly T[],
  isConcurrent: (item: T) => boolean,
  run: (item: T) => Promise<R>,
): Promise<R[]> => {
  const results: R[] = [];
  for (const batch of toToolBatches(items, isConcurrent)) {
    results.push(...(await Promise.all(batch.items.map(run))));
  }
  return results;
};
