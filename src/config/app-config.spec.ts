import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './app-config';

describe(loadConfig.name, () => {
  it('should give the embedded defaults for an empty environment', () => {
    const sut = loadConfig({});
    expect(sut.database).toMatchObject({ type: 'sqlite', url: 'sqlite:data/toolflow.sqlite' });
    expect(sut.port).toBe(3000);
    expect(sut.bodyLimitBytes).toBe(1024 * 1024);
    expect(sut.migrationsRun).toBe(true);
    expect(sut.providers.openai.base_url).toBe('https://api.openai.com/v1');
    expect(sut.queryDatabase).toBeNull();
    expect(sut.llmLimits).toEqual({ nodeTimeoutMs: 600_000, callBudgetMs: 180_000 });
  });

  it('should read the LLM limits and the call budget of a provider', () => {
    const sut = loadConfig({
      LLM_NODE_TIMEOUT_MS: '30000',
      LLM_CALL_BUDGET_MS: '20000',
      LLM_PROVIDERS: JSON.stringify({ slow: { base_url: 'http://h/v1', timeout_ms: 90_000, call_budget_ms: 300_000 } }),
    });
    expect(sut.llmLimits).toEqual({ nodeTimeoutMs: 30_000, callBudgetMs: 20_000 });
    expect(sut.providers.slow).toMatchObject({ timeout_ms: 90_000, call_budget_ms: 300_000 });
    expect(() => loadConfig({ LLM_CALL_BUDGET_MS: '0', LLM_NODE_TIMEOUT_MS: 'soon' })).toThrow(
      /LLM_NODE_TIMEOUT_MS[\s\S]*LLM_CALL_BUDGET_MS|LLM_CALL_BUDGET_MS[\s\S]*LLM_NODE_TIMEOUT_MS/,
    );
  });

  it('should read a MySQL URL, sizes, lists and booleans', () => {
    const sut = loadConfig({
      DATABASE_URL: 'mariadb://u:p@db:3306/toolflow',
      BODY_LIMIT: '512kb',
      OUTBOUND_ALLOW_PRIVATE: '10.0.0.0/8, 127.0.0.1/32',
      DB_MIGRATIONS_RUN: 'false',
    });
    expect(sut.database).toMatchObject({ type: 'mysql', database: 'toolflow' });
    expect(sut.database.url.startsWith('mysql://')).toBe(true);
    expect(sut.bodyLimitBytes).toBe(512 * 1024);
    expect(sut.outbound.allowPrivate).toEqual(['10.0.0.0/8', '127.0.0.1/32']);
    expect(sut.migrationsRun).toBe(false);
  });

  it('should list every problem at once', () => {
    const load = () =>
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'postgres://x', BODY_LIMIT: 'lots', DB_MIGRATIONS_RUN: 'maybe' });
    expect(load).toThrow(ConfigError);
    for (const name of ['PORT', 'DATABASE_URL', 'BODY_LIMIT', 'DB_MIGRATIONS_RUN']) expect(load).toThrow(name);
  });

  it('should take CORS origins exactly and refuse one with a path', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://console.example.com, http://localhost:5173' }).corsOrigins).toEqual([
      'https://console.example.com',
      'http://localhost:5173',
    ]);
    expect(() => loadConfig({ CORS_ORIGINS: 'https://console.example.com/' })).toThrow('CORS_ORIGINS');
  });

  it('should add named providers from JSON and from a file, and refuse bad ones', () => {
    const file = join(tmpdir(), `providers-${process.pid}.json`);
    writeFileSync(
      file,
      JSON.stringify({ ollama: { base_url: 'http://localhost:11434/v1', default_model: 'qwen2.5' } }),
    );
    const sut = loadConfig({
      LLM_PROVIDERS_FILE: file,
      LLM_PROVIDERS: JSON.stringify({ deepseek: { base_url: 'https://api.deepseek.com/v1', api_key: 'k' } }),
      LLM_DEFAULT_PROVIDER: 'ollama',
    });
    expect(Object.keys(sut.providers).sort()).toEqual(['deepseek', 'ollama', 'openai']);
    expect(sut.defaultProvider).toBe('ollama');
    expect(() => loadConfig({ LLM_PROVIDERS: '{"x": {"base_url": "ftp://nope"}}' })).toThrow(/provider "x"/);
    expect(() => loadConfig({ LLM_PROVIDERS: 'not json' })).toThrow(/not valid JSON/);
    expect(() => loadConfig({ LLM_DEFAULT_PROVIDER: 'missing' })).toThrow(/LLM_DEFAULT_PROVIDER/);
  });
});
