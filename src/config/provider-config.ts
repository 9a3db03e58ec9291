/** The wire protocols an LLM provider may speak; llm/ holds one adapter per entry (its provider map). */
export const PROVIDER_PROTOCOLS = ['openai-chat', 'anthropic', 'openai-responses', 'ollama'] as const;
export type ProviderProtocol = (typeof PROVIDER_PROTOCOLS)[number];

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
}

export type ProvidersConfig = Readonly<Record<string, ProviderConfig>>;
