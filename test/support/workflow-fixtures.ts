import type { OpenAITestServer } from './openai-test-server';

let sequence = 0;

/** Env that points the default `openai` provider at the scripted test server and lets tools reach loopback. */
export const llmEnv = (server: OpenAITestServer, extra: Record<string, string> = {}): Record<string, string> => ({
  OPENAI_BASE_URL: server.baseUrl,
  OPENAI_API_KEY: 'test-key',
  OPENAI_DEFAULT_MODEL: 'test-model',
  OUTBOUND_ALLOW_PRIVATE: '127.0.0.1/32',
  ...extra,
});

/** start → llm-1 → end, the LLM node built from `llm` (prompt defaults to the question input). */
export function agentWorkflow(llm: Record<string, unknown>, overrides: Record<string, unknown> = {}) {
  sequence += 1;
  return {
    name: `agent-${Date.now().toString(36)}-${sequence}`,
    inputs: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] },
    nodes: [
      { id: 'start', type: 'start', data: {} },
      { id: 'llm-1', type: 'llm', data: { prompt: '{{inputs.question}}', ...llm } },
      { id: 'end', type: 'end', data: { outputs: { answer: '{{llm-1.output}}' } } },
    ],
    edges: [
      { source: 'start', target: 'llm-1' },
      { source: 'llm-1', target: 'end' },
    ],
    ...overrides,
  };
}

export interface HttpToolOptions {
  /** Default `read_only` (runs in parallel with other read-only calls). */
  effect?: string;
  timeoutMs?: number;
  parameters?: Record<string, unknown>;
}

/** POST /tools body of an `http` tool calling `url` (which may hold `{param}` placeholders). */
export function httpToolBody(name: string, url: string, options: HttpToolOptions = {}): Record<string, unknown> {
  const parameters = options.parameters ?? {
    type: 'object',
    properties: { id: { type: 'string' } },
    required: ['id'],
    additionalProperties: false,
  };
  return {
    name,
    description: `Test tool ${name}`,
    function_schema: { type: 'function', function: { name, description: `Test tool ${name}`, parameters } },
    implementation_type: 'http',
    implementation_config: {
      url,
      method: 'GET',
      parse_mode: 'json',
      retry: { count: 0, backoff_ms: 0 },
      ...(options.timeoutMs !== undefined ? { timeout_ms: options.timeoutMs } : {}),
    },
    effect: options.effect ?? 'read_only',
  };
}

/**
 * A map over `inputs.ids` (`concurrency` items at once): per item an LLM node that may call `ping`, its answer the
 * item's output; the run's output `answers` lists them.
 */
export function mapPingWorkflow(name: string, concurrency: number): Record<string, unknown> {
  return {
    name,
    inputs: { type: 'object', properties: { ids: { type: 'array', items: { type: 'string' } } } },
    nodes: [
      { id: 'start', type: 'start', data: {} },
      {
        id: 'each',
        type: 'map',
        data: {
          items: '{{inputs.ids}}',
          concurrency,
          nodes: [
            { id: 'item-start', type: 'start', data: {} },
            { id: 'ask', type: 'llm', data: { prompt: 'Ping {{item}}', tools: ['ping'] } },
            { id: 'item-end', type: 'end', data: { outputs: { answer: '{{ask.text}}' } } },
          ],
          edges: [
            { source: 'item-start', target: 'ask' },
            { source: 'ask', target: 'item-end' },
          ],
        },
      },
      { id: 'end', type: 'end', data: { outputs: { answers: '{{each.output}}' } } },
    ],
    edges: [
      { source: 'start', target: 'each' },
      { source: 'each', target: 'end' },
    ],
  };
}
