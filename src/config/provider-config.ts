/** One named LLM endpoint, as config/ parses it from the environment; llm/ builds its providers from these. */
export interface ProviderConfig {
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
