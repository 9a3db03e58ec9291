export interface WaitForOptions {
  /** Upper bound, generous: it only turns a hang into a failure that says what never happened. */
  timeoutMs?: number;
  intervalMs?: number;
  /** What the test waited for, for the failure message. */
  what?: string;
}

/** Polls `condition` until it holds; fails after `timeoutMs` instead of hanging until Jest's timeout. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  { timeoutMs = 20_000, intervalMs = 20, what = 'condition' }: WaitForOptions = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() >= deadline) throw new Error(`waitFor: ${what} did not hold within ${timeoutMs} ms`);
    await new Promise<void>((resolve) => setTimeout(resolve, intervalMs));
  }
}
