import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Heap growth over `count` steps after `warmUp` steps, measured after forced GC (run node with --expose-gc).
 * `settleMs` waits before each reading for retention that is not a leak (e.g. finished runs keep their live
 * events 30 s for late SSE subscribers). Prints one line and returns the growth per step in bytes.
 */
export async function measureHeapGrowth(options: {
  label: string;
  count: number;
  warmUp: number;
  settleMs?: number;
  step: (index: number) => Promise<void>;
}): Promise<number> {
  const { label, count, warmUp, settleMs = 0, step } = options;
  for (let index = 0; index < warmUp; index++) await step(index);
  const before = await heapAfterGc(settleMs);
  for (let index = 0; index < count; index++) await step(index);
  const after = await heapAfterGc(settleMs);
  const perStep = (after - before) / count;
  const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);
  console.log(
    `${count} ${label}: heap after GC ${mb(before)} MB -> ${mb(after)} MB ` +
      `(${mb(after - before)} MB, ${perStep.toFixed(0)} bytes per ${label.replace(/s$/, '')})`,
  );
  return perStep;
}

/** `gc()`: node's own under --expose-gc, else the flag is set now and the function taken from a fresh context. */
function forcedGc(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Heap used after `settleMs` and three forced collections, in bytes. */
export async function heapAfterGc(settleMs: number): Promise<number> {
  const gc = forcedGc();
  if (settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settleMs));
  for (let round = 0; round < 3; round++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}
