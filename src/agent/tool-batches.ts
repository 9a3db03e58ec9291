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
 * Runs items batch after batch: a concurrent batch all at once, the others one at a time. `run` is told
 * whether its item is in the last batch. Results come back in item order whatever order they finished in.
 */
export const runToolBatches = async <T, R>(
  items: readonly T[],
  isConcurrent: (item: T) => boolean,
  run: (item: T, lastBatch: boolean) => Promise<R>,
): Promise<R[]> => {
  const results: R[] = [];
  const batches = toToolBatches(items, isConcurrent);
  for (const [index, batch] of batches.entries()) {
    const last = index === batches.length - 1;
    results.push(...(await Promise.all(batch.items.map((item) => run(item, last)))));
  }
  return results;
};
