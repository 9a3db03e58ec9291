/** `npm run bench:quick` (BENCH_QUICK=1): the issue 25 figures only, each from fewer runs. */
export const QUICK = process.env.BENCH_QUICK === '1';

/** A bench's size: its own variable when set, else the quick or the full default. */
export const benchSize = (variable: string, full: number, quick: number): number =>
  Number(process.env[variable] ?? (QUICK ? quick : full));
