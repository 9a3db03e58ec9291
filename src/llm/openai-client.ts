import OpenAI from 'openai';
import { nodeHttpFetch } from './node-http-fetch';
import { MAX_TIMER_MS, type ProviderOptions } from './streaming-provider';

/**
 * The official OpenAI client for one configured provider (Chat Completions and Responses alike). Everything is
 * passed explicitly so the SDK falls back on no OPENAI_* environment variable; retries and time limits are the
 * provider's own, so the SDK's are off; requests go over node:http (nodeHttpFetch). Keep the result in a private
 * (#) field: it holds the API key.
 */
export const createOpenAIClient = (options: Pick<ProviderOptions, 'baseUrl' | 'apiKey'>): OpenAI =>
  new OpenAI({
    baseURL: options.baseUrl,
    apiKey: options.apiKey ?? 'unused',
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    defaultHeaders: options.apiKey === undefined ? { Authorization: null } : undefined,
    timeout: MAX_TIMER_MS,
    maxRetries: 0,
    logLevel: 'off',
    fetch: nodeHttpFetch,
  });
