/** Context window of a model none of the rules below knows, and no configuration names: small on purpose. */
export const DEFAULT_CONTEXT_WINDOW = 32_768;

/**
 * Context windows (input plus output tokens) of well-known model families, first match wins. Matched against the
 * model name without a vendor prefix (`openai/gpt-4o` → `gpt-4o`) or an Ollama tag (`llama3.1:8b` → `llama3.1`).
 * Served models often get less than the family allows (Ollama's `num_ctx`, vLLM's `--max-model-len`): configure
 * `context_window` for those.
 */
const KNOWN_CONTEXT_WINDOWS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^gpt-5/, 400_000],
  [/^gpt-4\.1/, 1_047_576],
  [/^(?:gpt-4o|chatgpt-4o|gpt-4-turbo|gpt-4\.5)/, 128_000],
  [/^gpt-4-32k/, 32_768],
  [/^gpt-4(?:-\d|$)/, 8_192],
  [/^gpt-3\.5-turbo/, 16_385],
  [/^o1-(?:mini|preview)/, 128_000],
  [/^o[1-9]/, 200_000],
  [/^gpt-oss/, 131_072],
  [/^claude-/, 200_000],
  [/^gemini-(?:1\.5|2|3)/, 1_048_576],
  [/^deepseek-(?:chat|reasoner|v3|r1)/, 65_536],
  [/^(?:llama-?3\.[1-4]|llama-?4)/, 131_072],
  [/^llama-?3/, 8_192],
  [/^qwen(?:2\.5|3)/, 32_768],
  [/^(?:mistral-large|mistral-medium|mistral-small|codestral|ministral)/, 128_000],
  [/^(?:mistral|mixtral)/, 32_768],
  [/^gemma-?3/, 131_072],
  [/^gemma/, 8_192],
  [/^phi-?4/, 16_384],
];

/** The context window of a well-known model family, else null. */
export function knownContextWindow(model: string): number | null {
  const name = model.toLowerCase().split('/').at(-1)?.split(':')[0] ?? '';
  return KNOWN_CONTEXT_WINDOWS.find(([pattern]) => pattern.test(name))?.[1] ?? null;
}
