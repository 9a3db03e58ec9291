import { costText } from './cost';
import type { UsageFiguresDto, UsageItemDto } from '../api/types';

/** What a usage chart can show: the same figures the quotas count. */
export const USAGE_METRICS = ['total_tokens', 'cost', 'runs'] as const;
export type UsageMetric = (typeof USAGE_METRICS)[number];

export const METRIC_LABELS: Record<UsageMetric, string> = { total_tokens: 'Tokens', cost: 'Cost', runs: 'Runs' };

export interface UsageBar {
  key: string;
  /** What the row reads as: a workflow's name (its id when it has none), else the key. */
  label: string;
  /** null: the cost is unknown (a call had no known price); drawn as no bar, never as 0. */
  value: number | null;
  text: string;
  /** The bar's length, 0–100, relative to the largest value shown. */
  percent: number;
}

/** A metric's value in a row of figures; null only for an unknown cost. */
export function metricValue(figures: UsageFiguresDto, metric: UsageMetric): number | null {
  switch (metric) {
    case 'total_tokens':
      return figures.total_tokens;
    case 'runs':
      return figures.runs;
    case 'cost':
      return figures.cost?.amount ?? null;
  }
}

/** How a metric's value reads: tokens and runs as grouped integers, cost with its currency. */
export function metricText(figures: UsageFiguresDto, metric: UsageMetric): string {
  return metric === 'cost' ? costText(figures.cost) : (metricValue(figures, metric) ?? 0).toLocaleString('en-US');
}

/** How a row of usage is named: a stored workflow by its name, everything else by its key. */
export const usageLabel = (item: UsageItemDto): string => item.name ?? item.key;

/** One bar per row, scaled to the largest value; an all-zero chart has no bars rather than full ones. */
export function usageBars(items: UsageItemDto[], metric: UsageMetric): UsageBar[] {
  const values = items.map((item) => metricValue(item, metric));
  const largest = Math.max(0, ...values.map((value) => value ?? 0));
  return items.map((item, index) => {
    const value = values[index];
    return {
      key: item.key,
      label: usageLabel(item),
      value,
      text: metricText(item, metric),
      percent: largest > 0 && value !== null ? (value / largest) * 100 : 0,
    };
  });
}
