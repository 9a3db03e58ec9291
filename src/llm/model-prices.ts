import type { ModelPrice, ProviderConfig } from '../config/provider-config';
import type { TokenUsage } from '../shared/chat-types';

/** An amount of money; `amount` in the currency's main unit (dollars, not cents). */
export interface Cost {
  amount: number;
  currency: string;
}

/** Where a model's price came from, most specific first. */
export type PriceSource = 'provider' | 'prices_file' | 'list_price';

export interface PricedModel {
  price: Required<Pick<ModelPrice, 'currency'>> & ModelPrice;
  source: PriceSource;
}

/** The date the list prices below were last checked against the vendors' published pricing pages. */
export const LIST_PRICES_CHECKED = '2025-08-01';

/**
 * Vendors' list prices in USD per million tokens, for models served by the vendor's own API host. A model of the
 * same name behind another base URL (a proxy, vLLM, a reseller) is not priced from this list: its price is unknown
 * until configured. Dated snapshots (`gpt-4o-2024-08-06`, `claude-sonnet-4-20250514`) take their family's price.
 */
const LIST_PRICES: Record<string, { host: string; prices: Record<string, ModelPrice> }> = {
  openai: {
    host: 'api.openai.com',
    prices: {
      'gpt-5': { input: 1.25, cached_input: 0.125, output: 10 },
      'gpt-5-mini': { input: 0.25, cached_input: 0.025, output: 2 },
      'gpt-5-nano': { input: 0.05, cached_input: 0.005, output: 0.4 },
      'gpt-4.1': { input: 2, cached_input: 0.5, output: 8 },
      'gpt-4.1-mini': { input: 0.4, cached_input: 0.1, output: 1.6 },
      'gpt-4.1-nano': { input: 0.1, cached_input: 0.025, output: 0.4 },
      'gpt-4o': { input: 2.5, cached_input: 1.25, output: 10 },
      'gpt-4o-mini': { input: 0.15, cached_input: 0.075, output: 0.6 },
      o3: { input: 2, cached_input: 0.5, output: 8 },
      'o3-mini': { input: 1.1, cached_input: 0.55, output: 4.4 },
      'o4-mini': { input: 1.1, cached_input: 0.275, output: 4.4 },
      o1: { input: 15, cached_input: 7.5, output: 60 },
    },
  },
  anthropic: {
    host: 'api.anthropic.com',
    prices: {
      'claude-opus-4-1': { input: 15, cached_input: 1.5, output: 75 },
      'claude-opus-4': { input: 15, cached_input: 1.5, output: 75 },
      'claude-sonnet-4': { input: 3, cached_input: 0.3, output: 15 },
      'claude-3-7-sonnet': { input: 3, cached_input: 0.3, output: 15 },
      'claude-3-5-sonnet': { input: 3, cached_input: 0.3, output: 15 },
      'claude-3-5-haiku': { input: 0.8, cached_input: 0.08, output: 4 },
    },
  },
};

const SNAPSHOT_SUFFIX = /^-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

/** `model` itself, or the family a dated snapshot of it belongs to, in `prices`. */
function lookUp(prices: Readonly<Record<string, ModelPrice>>, model: string): ModelPrice | undefined {
  if (Object.hasOwn(prices, model)) return prices[model];
  const family = Object.keys(prices).find(
    (name) => model.startsWith(name) && SNAPSHOT_SUFFIX.test(model.slice(name.length)),
  );
  return family === undefined ? undefined : prices[family];
}

function hostOf(baseUrl: string): string | null {
  return URL.canParse(baseUrl) ? new URL(baseUrl).hostname : null;
}

/**
 * Prices of the configured providers' models: the provider entry's `models.<model>.price`, else `PRICES_FILE`'s
 * `provider/model` then `model` entry, else the vendor's list price when the provider is the vendor's own API.
 */
export class PriceTable {
  constructor(
    private readonly providers: Readonly<Record<string, ProviderConfig>>,
    private readonly pricesFile: Readonly<Record<string, ModelPrice>> = {},
  ) {}

  /** The price of `model` on provider `providerName`, or null when nothing says it. */
  priceOf(providerName: string, model: string): PricedModel | null {
    const config = this.providers[providerName];
    const configured = config?.models?.[model]?.price;
    if (configured !== undefined) return priced(configured, 'provider');
    const filed = lookUp(this.pricesFile, `${providerName}/${model}`) ?? lookUp(this.pricesFile, model);
    if (filed !== undefined) return priced(filed, 'prices_file');
    if (config === undefined) return null;
    const host = hostOf(config.base_url);
    for (const vendor of Object.values(LIST_PRICES)) {
      if (vendor.host !== host) continue;
      const listed = lookUp(vendor.prices, model);
      if (listed !== undefined) return priced(listed, 'list_price');
    }
    return null;
  }

  /** Models a price list names for `providerName` (PRICES_FILE's `provider/model` entries, the vendor's list). */
  namedModels(providerName: string): string[] {
    const config = this.providers[providerName];
    if (config === undefined) return [];
    const host = hostOf(config.base_url);
    const listed = Object.values(LIST_PRICES).flatMap((vendor) =>
      vendor.host === host ? Object.keys(vendor.prices) : [],
    );
    const filed = Object.keys(this.pricesFile).flatMap((key) => {
      const slash = key.indexOf('/');
      if (slash < 0) return [];
      return key.slice(0, slash) === providerName ? [key.slice(slash + 1)] : [];
    });
    return [...new Set([...filed, ...listed])];
  }

  /** What `usage` cost on `providerName`'s `model`; null when the model has no known price (never 0). */
  costOf(providerName: string, model: string, usage: TokenUsage): Cost | null {
    const priced = this.priceOf(providerName, model);
    return priced === null ? null : costOf(usage, priced.price);
  }
}

function priced(price: ModelPrice, source: PriceSource): PricedModel {
  return { price: { ...price, currency: price.currency ?? 'USD' }, source };
}

/** Prices are per million tokens; amounts keep 10 decimals so sums of many small calls do not drift. */
export function costOf(usage: TokenUsage, price: ModelPrice): Cost {
  const cached = Math.min(usage.cachedPromptTokens ?? 0, usage.promptTokens);
  const reasoning = Math.min(usage.reasoningTokens ?? 0, usage.completionTokens);
  const micro =
    (usage.promptTokens - cached) * price.input +
    cached * (price.cached_input ?? price.input) +
    (usage.completionTokens - reasoning) * price.output +
    reasoning * (price.reasoning ?? price.output);
  return { amount: roundAmount(micro / 1_000_000), currency: price.currency ?? 'USD' };
}

export function roundAmount(amount: number): number {
  return Math.round(amount * 1e10) / 1e10;
}

/**
 * The sum of costs; null when any is null (one unpriced call makes the total unknown, not smaller) or when they
 * are in different currencies. An empty list costs nothing: `{amount: 0, currency: 'USD'}`.
 */
export function addCosts(costs: ReadonlyArray<Cost | null>): Cost | null {
  let total: Cost = { amount: 0, currency: 'USD' };
  let first = true;
  for (const cost of costs) {
    if (cost === null) return null;
    if (!first && cost.currency !== total.currency) return null;
    total = { amount: roundAmount(total.amount + cost.amount), currency: cost.currency };
    first = false;
  }
  return total;
}

/** `now` minus `before`; null when either is unknown or they are in different currencies (never a made-up 0). */
export function costDifference(now: Cost | null, before: Cost | null): Cost | null {
  if (now === null || before === null || now.currency !== before.currency) return null;
  return { amount: roundAmount(now.amount - before.amount), currency: now.currency };
}
