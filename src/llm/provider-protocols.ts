import type { ProviderProtocol } from '../config/provider-config';
import { AnthropicProvider } from './anthropic.provider';
import { type EmbeddingProvider, OllamaEmbeddings, OpenAIEmbeddings } from './embeddings';
import { OllamaProvider } from './ollama.provider';
import { OpenAIChatProvider } from './openai-chat.provider';
import { OpenAIResponsesProvider } from './openai-responses.provider';
import type { ChatProvider } from './provider';
import type { ProviderOptions } from './streaming-provider';

/** The provider map: one adapter per protocol; a protocol the config accepts fails to compile until it has one. */
export const PROVIDER_ADAPTERS: Readonly<Record<ProviderProtocol, (options: ProviderOptions) => ChatProvider>> = {
  'openai-chat': (options) => new OpenAIChatProvider(options),
  anthropic: (options) => new AnthropicProvider(options),
  'openai-responses': (options) => new OpenAIResponsesProvider(options),
  ollama: (options) => new OllamaProvider(options),
};

/** Embeddings per protocol: both OpenAI protocols use `{base}/embeddings`; Anthropic has no embeddings API. */
export const EMBEDDING_ADAPTERS: Readonly<
  Record<ProviderProtocol, ((options: ProviderOptions) => EmbeddingProvider) | null>
> = {
  'openai-chat': (options) => new OpenAIEmbeddings(options),
  'openai-responses': (options) => new OpenAIEmbeddings(options),
  anthropic: null,
  ollama: (options) => new OllamaEmbeddings(options),
};
