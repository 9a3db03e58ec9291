import type { ProviderConfig, ProviderProtocol } from '../config/provider-config';
import { isRecord } from '../shared/is-record';

/** How long listing a provider's models may take before it counts as unreachable. */
export const MODEL_LISTING_TIMEOUT_MS = 5000;

interface ListingEndpoint {
  /** The path after the configured base URL (which, for OpenAI, ends at `/v1`). */
  path: string;
  headers: (apiKey: string | undefined) => Record<string, string>;
  /** The model ids of the answer's JSON; throws on a shape the protocol does not send. */
  read: (body: unknown) => string[];
}

const bearer = (apiKey: string | undefined): Record<string, string> =>
  apiKey ? { authorization: `Bearer ${apiKey}` } : {};

function idsOf(list: unknown, key: 'id' | 'name'): string[] {
  if (!Array.isArray(list)) throw new Error('the answer holds no model list');
  return list.flatMap((entry) => (isRecord(entry) && typeof entry[key] === 'string' ? [entry[key]] : []));
}

const OPENAI_MODELS: ListingEndpoint = {
  path: '/models',
  headers: bearer,
  read: (body) => idsOf(isRecord(body) ? body.data : undefined, 'id'),
};

/** Each protocol's model list endpoint (a map, like the adapters: a new protocol must say its own). */
const LISTING_ENDPOINTS: Record<ProviderProtocol, ListingEndpoint> = {
  'openai-chat': OPENAI_MODELS,
  'openai-responses': OPENAI_MODELS,
  anthropic: {
    path: '/v1/models?limit=1000',
    headers: (apiKey) => ({ 'anthropic-version': '2023-06-01', ...(apiKey ? { 'x-api-key': apiKey } : {}) }),
    read: (body) => idsOf(isRecord(body) ? body.data : undefined, 'id'),
  },
  ollama: {
    path: '/api/tags',
    headers: bearer,
    read: (body) => idsOf(isRecord(body) ? body.models : undefined, 'name'),
  },
};

/**
 * The model ids a provider's model list endpoint names. Throws an Error whose message says why the provider
 * could not be listed (status, timeout, connection refused), never quoting its key.
 */
export async function listModels(config: ProviderConfig, fetchImpl: typeof fetch = fetch): Promise<string[]> {
  const endpoint = LISTING_ENDPOINTS[config.protocol ?? 'openai-chat'];
  const url = config.base_url.replace(/\/+$/, '') + endpoint.path;
  let response: Response;
  try {
    response = await fetchImpl(url, {
      headers: { accept: 'application/json', ...endpoint.headers(config.api_key) },
      signal: AbortSignal.timeout(MODEL_LISTING_TIMEOUT_MS),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${MODEL_LISTING_TIMEOUT_MS} ms` : cause;
    throw new Error(`listing models failed: ${reason ?? (error as Error).message}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`listing models failed: HTTP ${response.status}`);
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new Error('listing models failed: the answer is not JSON');
  }
  return endpoint.read(body);
}
