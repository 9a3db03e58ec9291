import { inspect } from 'node:util';
import { DEFAULT_CONTEXT_WINDOW } from './context-window';
import { ObservedProvider } from './observed-provider';
import {
  InvalidProviderConfigError,
  ModelRequiredError,
  ProviderRegistry,
  UnknownProviderError,
} from './provider-registry';
import type { ProvidersConfig } from '../config/provider-config';

describe(ProviderRegistry.name, () => {
  const config: ProvidersConfig = {
    openai: { base_url: 'https://api.openai.com/v1', api_key: 'sk-very-secret', default_model: 'gpt-4o-mini' },
    ollama: { base_url: 'http://127.0.0.1:11434/v1', timeout_ms: 300_000, call_budget_ms: 600_000, max_retries: 1 },
  };
  let sut: ProviderRegistry;

  beforeEach(() => {
    sut = new ProviderRegistry(config);
  });

  it('should build each named provider once', () => {
    const provider = sut.getProvider('ollama');

    expect(provider).toBeInstanceOf(ObservedProvider);
    expect(provider.name).toBe('ollama');
    expect(sut.getProvider('ollama')).toBe(provider);
    expect(sut.names).toEqual(['openai', 'ollama']);
  });

  it('should build each provider from the adapter of its protocol, keeping the key out of its JSON', () => {
    const registry = new ProviderRegistry({
      claude: { protocol: 'anthropic', base_url: 'https://api.anthropic.com', api_key: 'sk-ant-secret' },
    });
    const provider = registry.getProvider('claude');

    expect(inspect(provider, { depth: 5 })).toContain('AnthropicProvider');
    expect(inspect(provider, { depth: 5 })).not.toContain('sk-ant-secret');
    expect(registry.toJSON().claude.protocol).toBe('anthropic');
  });

  it('should throw a typed error listing the configured names for an unknown provider', () => {
    const attempt = () => sut.getProvider('deepseek');

    expect(attempt).toThrow(UnknownProviderError);
    expect(attempt).toThrow('unknown LLM provider "deepseek" (configured: openai, ollama)');
  });

  it('should resolve the requested model, else the default, else throw', () => {
    expect(sut.resolveModel('openai', 'gpt-4.1')).toBe('gpt-4.1');
    expect(sut.resolveModel('openai')).toBe('gpt-4o-mini');
    expect(() => sut.resolveModel('ollama')).toThrow(ModelRequiredError);
    expect(() => sut.resolveModel('nope', 'm')).toThrow(UnknownProviderError);
  });

  it('should take the context window from the model entry, the provider, the model family, else the default', () => {
    const registry = new ProviderRegistry({
      local: {
        base_url: 'http://127.0.0.1:11434',
        context_window: 16_384,
        models: { 'qwen3:32b': { context_window: 40_960 } },
      },
      gpt: { base_url: 'https://api.openai.com/v1' },
    });

    expect(registry.contextWindow('local', 'qwen3:32b')).toBe(40_960);
    expect(registry.contextWindow('local', 'llama3.1:8b')).toBe(16_384);
    expect(registry.contextWindow('gpt', 'gpt-4o-mini')).toBe(128_000);
    expect(registry.contextWindow('gpt', 'my-fine-tune')).toBe(DEFAULT_CONTEXT_WINDOW);
  });

  it('should refuse a context window below the minimum, naming the entry', () => {
    expect(() => new ProviderRegistry({ bad: { base_url: 'http://x', context_window: 100 } })).toThrow(
      'context_window must be an integer of at least 1024',
    );
    expect(
      () => new ProviderRegistry({ bad: { base_url: 'http://x', models: { m: { context_window: 1.5 } } } }),
    ).toThrow('models.m.context_window');
  });

  it('should never show an API key in toJSON, errors or the serialised provider', () => {
    const shown = [
      JSON.stringify(sut),
      JSON.stringify(sut.getProvider('openai')),
      (() => {
        try {
          sut.getProvider('x');
          return '';
        } catch (error) {
          return String(error);
        }
      })(),
    ].join('\n');

    expect(shown).not.toContain('sk-very-secret');
    expect(sut.toJSON().openai).toEqual({
      protocol: 'openai-chat',
      base_url: 'https://api.openai.com/v1',
      has_api_key: true,
      default_model: 'gpt-4o-mini',
      timeout_ms: null,
      call_budget_ms: 180_000,
      max_retries: null,
    });
  });

  it('should reject a configuration with a bad URL or bad numbers', () => {
    expect(() => new ProviderRegistry({ bad: { base_url: 'not a url' } })).toThrow(InvalidProviderConfigError);
    expect(() => new ProviderRegistry({ bad: { base_url: 'http://x', max_retries: -1 } })).toThrow('max_retries');
    expect(() => new ProviderRegistry({ bad: { base_url: 'http://x', timeout_ms: 0 } })).toThrow('timeout_ms');
    expect(() => new ProviderRegistry({ bad: { base_url: 'http://x', call_budget_ms: 0 } })).toThrow('call_budget_ms');
  });

  // A silence limit above the budget is refused where the configuration is read (loadConfig), before any registry.
  it('should give each provider the shared call budget unless it sets its own', () => {
    const slow = { base_url: 'http://x', timeout_ms: 300_000 };

    expect(new ProviderRegistry({ slow }, { callBudgetMs: 300_000 }).toJSON().slow.call_budget_ms).toBe(300_000);
    expect(new ProviderRegistry({ slow: { ...slow, call_budget_ms: 600_000 } }).toJSON().slow.call_budget_ms).toBe(
      600_000,
    );
  });
});
