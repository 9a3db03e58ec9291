import type { ProviderConfig, ProviderProtocol } from '../config/provider-config';
import { errorMessage } from '../shared/error-text';
import { listModels } from './model-listing';
import type { PricedModel, PriceSource, PriceTable } from './model-prices';
import type { ProviderRegistry } from './provider-registry';

/** A listing is read again after this long; a failed one sooner, so a provider that comes back shows up. */
export const LISTING_TTL_MS = 10 * 60_000;
export const FAILED_LISTING_TTL_MS = 60_000;

export interface CatalogModel {
  id: string;
  context_window: number;
  price: (PricedModel['price'] & { source: PriceSource }) | null;
  /** Where the model is known from: the provider's configuration, its model list endpoint, the price table. */
  sources: Array<'configured' | 'listed' | 'priced'>;
}

export interface CatalogProvider {
  name: string;
  protocol: ProviderProtocol;
  /** Admins only: where it is (null for other keys). */
  base_url: string | null;
  is_default: boolean;
  default_model: string | null;
  models: CatalogModel[];
  /** From the last model listing: true, false (see `last_error`) or null when it was never tried. */
  reachable: boolean | null;
  last_error: string | null;
  checked_at: string | null;
  /** The last model call through this provider in this process. */
  last_call: { outcome: 'success' | 'error'; at: string; error: string | null } | null;
}

interface Listing {
  models: string[];
  error: string | null;
  checkedAt: number;
}

/**
 * The configured providers as a person picking one needs them: models (configured, listed by the provider's own
 * endpoint, priced), context windows, prices, and whether the provider answered lately.
 */
export class ProviderCatalog {
  readonly #listings = new Map<string, Listing>();
  readonly #inFlight = new Map<string, Promise<Listing>>();
  readonly #lastCalls = new Map<string, CatalogProvider['last_call']>();

  constructor(
    private readonly configs: Readonly<Record<string, ProviderConfig>>,
    private readonly registry: ProviderRegistry,
    private readonly prices: PriceTable,
    private readonly defaultProvider: string,
    private readonly options: { now?: () => number; fetch?: typeof fetch } = {},
  ) {
    registry.observe((call) => {
      const at = new Date(this.#now()).toISOString();
      this.#lastCalls.set(call.provider, { outcome: call.outcome, at, error: call.error ?? null });
    });
  }

  /** Every configured provider; `refresh` lists models again even when the last listing is fresh. */
  async list(options: { refresh?: boolean; showLocation: boolean }): Promise<CatalogProvider[]> {
    return Promise.all(Object.entries(this.configs).map(([name, config]) => this.#describe(name, config, options)));
  }

  async #describe(
    name: string,
    config: ProviderConfig,
    options: { refresh?: boolean; showLocation: boolean },
  ): Promise<CatalogProvider> {
    const listing = await this.#listing(name, config, options.refresh === true);
    const configured = Object.keys(config.models ?? {});
    if (config.default_model) configured.unshift(config.default_model);
    const priced = this.prices.namedModels(name);
    const ids = [...new Set([...configured, ...listing.models, ...priced])].sort((a, b) => a.localeCompare(b));
    return {
      name,
      protocol: config.protocol ?? 'openai-chat',
      base_url: options.showLocation ? config.base_url : null,
      is_default: name === this.defaultProvider,
      default_model: config.default_model ?? null,
      models: ids.map((id) => {
        const price = this.prices.priceOf(name, id);
        const sources: CatalogModel['sources'] = [];
        if (configured.includes(id)) sources.push('configured');
        if (listing.models.includes(id)) sources.push('listed');
        if (priced.includes(id)) sources.push('priced');
        return {
          id,
          context_window: this.registry.contextWindow(name, id),
          price: price === null ? null : { ...price.price, source: price.source },
          sources,
        };
      }),
      reachable: listing.checkedAt === 0 ? null : listing.error === null,
      last_error: listing.error,
      checked_at: listing.checkedAt === 0 ? null : new Date(listing.checkedAt).toISOString(),
      last_call: this.#lastCalls.get(name) ?? null,
    };
  }

  async #listing(name: string, config: ProviderConfig, refresh: boolean): Promise<Listing> {
    const cached = this.#listings.get(name);
    const ttl = cached?.error === null ? LISTING_TTL_MS : FAILED_LISTING_TTL_MS;
    if (!refresh && cached !== undefined && this.#now() - cached.checkedAt < ttl) return cached;
    const running = this.#inFlight.get(name);
    if (running !== undefined) return running;
    const listing = listModels(config, this.options.fetch)
      .then((models): Listing => ({ models, error: null, checkedAt: this.#now() }))
      .catch((error: unknown): Listing => ({ models: [], error: errorMessage(error), checkedAt: this.#now() }))
      .then((result) => {
        this.#listings.set(name, result);
        this.#inFlight.delete(name);
        return result;
      });
    this.#inFlight.set(name, listing);
    return listing;
  }

  #now(): number {
    return (this.options.now ?? Date.now)();
  }
}
