/**
 * Runs `work` for each index, in order, at most `concurrency` at once: a new one starts as soon as one ends,
 * until every index ran or `stopped()` says to start no more. Resolves once every started one has ended;
 * rejects with the first rejection (after the others ended), so `work` should record its own failures.
 */
export async function runEach(
  indices: readonly number[],
  concurrency: number,
  work: (index: number) => Promise<void>,
  stopped: () => boolean = () => false,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < indices.length && !stopped()) {
      const index = indices[next++];
      await work(index);
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(concurrency, indices.length)) }, worker);
  const settled = await Promise.allSettled(workers);
  const rejected = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (rejected) throw rejected.reason;
}
