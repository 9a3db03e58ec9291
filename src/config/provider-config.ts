/** The wire protocols an LLM provider may speak; llm/ holds one adapter per entry (its provider map). */
export const PROVIDER_PROTOCOLS = ['openai-chat', 'anthropic', 'openai-responses', 'ollama'] as const;
export type ProviderProtocol = (typeof PROVIDER_PROTOCOLS)[number];

/** The smallest context window a provider entry (or an LLM node) may declare. */
export const MIN_CONTEXT_WINDOW = 1024;

/** One named LLM endpoint, as config/ parses it from the environment; llm/ builds its providers from these. */
export interface ProviderConfig {
  /** Default `openai-chat`. */
  protocol?: ProviderProtocol;
  /** What the protocol's official SDK takes as its base URL (OpenAI: up to `/v1`; Anthropic, Ollama: the root). */
  base_url: string;
  api_key?: string;
  default_model?: string;
  /** Longest silence before a retry; at most the call budget. */
  timeout_ms?: number;
  /** Longest one model call may take, retries included; default `LLM_CALL_BUDGET_MS`. */
  call_budget_ms?: number;
  max_retries?: number;
  /** Context window (tokens in plus out) of this provider's models that `models` does not name. */
  context_window?: number;
  /** Per model: its context window (over `context_window` and the well-known defaults) and its price. */
  models?: Record<string, ModelSettings>;
}

/** What a provider entry may say of one of its models. */
export interface ModelSettings {
  context_window?: number;
  /** Over `PRICES_FILE` and the well-known list prices. */
  price?: ModelPrice;
}

/**
 * A model's price per million tokens. `cached_input` prices prompt tokens read from the provider's cache
 * (default: `input`); `reasoning` prices reasoning tokens (default: `output`, as the providers bill them).
 */
export interface ModelPrice {
  input: number;
  output: number;
  cached_input?: number;
  reasoning?: number;
  /** ISO 4217 code; default `USD`. */
  currency?: string;
}

export type ProvidersConfig = Readonly<Record<string, ProviderConfig>>;
