import type { QuotaWindow } from './quota.dto';

export interface WindowBounds {
  from: Date;
  /** When the window ends and its count starts again from 0; null for `concurrent`. */
  resetsAt: Date | null;
}

/** The UTC day or calendar month `now` is in (quotas count in UTC, like the usage endpoint's days). */
export function windowOf(window: QuotaWindow, now: Date): WindowBounds {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  switch (window) {
    case 'concurrent':
      return { from: now, resetsAt: null };
    case 'day': {
      const from = new Date(Date.UTC(year, month, now.getUTCDate()));
      return { from, resetsAt: new Date(from.getTime() + 86_400_000) };
    }
    case 'month':
      return { from: new Date(Date.UTC(year, month, 1)), resetsAt: new Date(Date.UTC(year, month + 1, 1)) };
  }
}
