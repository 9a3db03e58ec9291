import { DEFAULT_CONTEXT_WINDOW, knownContextWindow } from './context-window';
import { EMBEDDING_ADAPTERS, PROVIDER_ADAPTERS } from './provider-protocols';
import { type EmbeddingProvider, EmbeddingsUnsupportedError } from './embeddings';
import { DEFAULT_CALL_BUDGET_MS } from './streaming-provider';
import { type ModelCallListener, ObservedProvider } from './observed-provider';
import type { ChatProvider } from './provider';
import type { RetryOptions } from './retry';
import {
  MIN_CONTEXT_WINDOW,
  type ProviderConfig,
  type ProviderProtocol,
  type ProvidersConfig,
} from '../config/provider-config';

/** What `toJSON` shows of a provider: everything but the key. */
export interface ProviderSummary {
  protocol: ProviderProtocol;
  base_url: string;
  has_api_key: boolean;
  default_model: string | null;
  timeout_ms: number | null;
  call_budget_ms: number;
  max_retries: number | null;
}

export interface ProviderRegistryOptions {
  /** Backoff settings shared by every provider; `max_retries` of a provider overrides `maxRetries`. */
  retry?: RetryOptions;
  /** Call budget of providers that set no `call_budget_ms`. Default 180 s. */
  callBudgetMs?: number;
  now?: () => number;
}

export class UnknownProviderError extends Error {
  readonly code = 'UNKNOWN_PROVIDER';

  constructor(
    readonly providerName: string,
    readonly configuredNames: readonly string[],
  ) {
    const known = configuredNames.length > 0 ? configuredNames.join(', ') : 'none';
    super(`unknown LLM provider "${providerName}" (configured: ${known})`);
    this.name = 'UnknownProviderError';
  }
}

/** Where the providers defined by their own variables take their default model from. */
const BUILT_IN_DEFAULT_MODELS: Readonly<Record<string, string>> = {
  openai: 'OPENAI_DEFAULT_MODEL',
  anthropic: 'ANTHROPIC_DEFAULT_MODEL',
};

export class ModelRequiredError extends Error {
  readonly code = 'MODEL_REQUIRED';

  constructor(readonly providerName: string) {
    const where = BUILT_IN_DEFAULT_MODELS[providerName] ?? `its "default_model" in LLM_PROVIDERS`;
    super(
      `no model given and provider "${providerName}" has no default_model: name a "model" on the node, or set ${where}`,
    );
    this.name = 'ModelRequiredError';
  }
}

export class InvalidProviderConfigError extends Error {
  readonly code = 'INVALID_PROVIDER_CONFIG';

  constructor(
    readonly providerName: string,
    detail: string,
  ) {
    super(`LLM provider "${providerName}": ${detail}`);
    this.name = 'InvalidProviderConfigError';
  }
}

/** Named providers, each speaking its configured protocol; each is built once, on first use. */
export class ProviderRegistry {
  readonly #configs: ReadonlyMap<string, ProviderConfig>;
  readonly #providers = new Map<string, ChatProvider>();
  readonly #embedders = new Map<string, EmbeddingProvider>();
  readonly #options: ProviderRegistryOptions;
  readonly #listeners = new Set<ModelCallListener>();

  constructor(config: ProvidersConfig, options: ProviderRegistryOptions = {}) {
    const callBudgetMs = options.callBudgetMs ?? DEFAULT_CALL_BUDGET_MS;
    this.#configs = new Map(
      Object.entries(config).map(([name, entry]) => [name, { call_budget_ms: callBudgetMs, ...entry }]),
    );
    for (const [name, entry] of this.#configs) validate(name, entry);
    this.#options = options;
  }

  get names(): string[] {
    return [...this.#configs.keys()];
  }

  has(name: string): boolean {
    return this.#configs.has(name);
  }

  /** Adds a listener for every model call of every provider; returns its removal. */
  observe(listener: ModelCallListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  getProvider(name: string): ChatProvider {
    const cached = this.#providers.get(name);
    if (cached !== undefined) return cached;
    const config = this.#config(name);
    const adapter = PROVIDER_ADAPTERS[config.protocol ?? 'openai-chat']({
      name,
      baseUrl: config.base_url,
      apiKey: config.api_key,
      timeoutMs: config.timeout_ms,
      callBudgetMs: config.call_budget_ms,
      retry: this.#retry(config),
      now: this.#options.now,
    });
    const provider = new ObservedProvider(adapter, this.#listeners);
    this.#providers.set(name, provider);
    return provider;
  }

  /** Whether the provider's protocol has an embeddings API. */
  embeds(name: string): boolean {
    return EMBEDDING_ADAPTERS[this.#config(name).protocol ?? 'openai-chat'] !== null;
  }

  /** The provider's embeddings endpoint; throws EmbeddingsUnsupportedError for a protocol without one. */
  getEmbedder(name: string): EmbeddingProvider {
    const cached = this.#embedders.get(name);
    if (cached !== undefined) return cached;
    const config = this.#config(name);
    const protocol = config.protocol ?? 'openai-chat';
    const adapter = EMBEDDING_ADAPTERS[protocol];
    if (adapter === null) throw new EmbeddingsUnsupportedError(name, protocol);
    const embedder = adapter({
      name,
      baseUrl: config.base_url,
      apiKey: config.api_key,
      timeoutMs: config.timeout_ms,
      retry: this.#retry(config),
    });
    this.#embedders.set(name, embedder);
    return embedder;
  }

  /** The model asked for, else the provider's default. */
  resolveModel(name: string, model?: string): string {
    const config = this.#config(name);
    const resolved = model?.trim() || config.default_model;
    if (resolved === undefined || resolved === '') throw new ModelRequiredError(name);
    return resolved;
  }

  /**
   * Tokens (in plus out) one request to `model` may hold: the provider's `models` entry, else its
   * `context_window`, else the model family's well-known window, else DEFAULT_CONTEXT_WINDOW.
   */
  contextWindow(name: string, model: string): number {
    const config = this.#config(name);
    return (
      config.models?.[model]?.context_window ??
      config.context_window ??
      knownContextWindow(model) ??
      DEFAULT_CONTEXT_WINDOW
    );
  }

  toJSON(): Record<string, ProviderSummary> {
    return Object.fromEntries(
      [...this.#configs].map(([name, config]) => [
        name,
        {
          protocol: config.protocol ?? 'openai-chat',
          base_url: config.base_url,
          has_api_key: config.api_key !== undefined && config.api_key !== '',
          default_model: config.default_model ?? null,
          timeout_ms: config.timeout_ms ?? null,
          call_budget_ms: config.call_budget_ms ?? DEFAULT_CALL_BUDGET_MS,
          max_retries: config.max_retries ?? null,
        },
      ]),
    );
  }

  /** The shared backoff settings, with the provider's own `max_retries`. */
  #retry(config: ProviderConfig): RetryOptions {
    return { ...this.#options.retry, ...(config.max_retries === undefined ? {} : { maxRetries: config.max_retries }) };
  }

  #config(name: string): ProviderConfig {
    const config = this.#configs.get(name);
    if (config === undefined) throw new UnknownProviderError(name, this.names);
    return config;
  }
}

function validate(name: string, config: ProviderConfig): void {
  if (!URL.canParse(config.base_url)) throw new InvalidProviderConfigError(name, 'base_url is not a URL');
  for (const key of ['timeout_ms', 'call_budget_ms', 'max_retries'] as const) {
    const value = config[key];
    if (value !== undefined && (!Number.isInteger(value) || value < 0)) {
      throw new InvalidProviderConfigError(name, `${key} must be a non-negative integer`);
    }
  }
  const windows: Array<[string, number | undefined]> = [
    ['context_window', config.context_window],
    ...Object.entries(config.models ?? {}).map(([model, entry]): [string, number | undefined] => [
      `models.${model}.context_window`,
      entry.context_window,
    ]),
  ];
  for (const [key, value] of windows) {
    if (value !== undefined && (!Number.isInteger(value) || value < MIN_CONTEXT_WINDOW)) {
      throw new InvalidProviderConfigError(name, `${key} must be an integer of at least ${MIN_CONTEXT_WINDOW}`);
    }
  }
  if (config.timeout_ms === 0) throw new InvalidProviderConfigError(name, 'timeout_ms must be positive');
  if (config.call_budget_ms === 0) throw new InvalidProviderConfigError(name, 'call_budget_ms must be positive');
}
