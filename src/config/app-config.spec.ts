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
    expect(sut.llmLimits).toEqual({
      nodeTimeoutMs: 600_000,
      callBudgetMs: 180_000,
      maxToolResultTokens: 8000,
      toolSelectionLearning: true,
    });
  });

  it('should turn tool selection learning off with TOOL_SELECTION_LEARNING=false', () => {
    expect(loadConfig({ TOOL_SELECTION_LEARNING: 'false' }).llmLimits.toolSelectionLearning).toBe(false);
  });

  it('should read the LLM limits and the call budget of a provider', () => {
    const sut = loadConfig({
      LLM_NODE_TIMEOUT_MS: '30000',
      LLM_CALL_BUDGET_MS: '20000',
      LLM_MAX_TOOL_RESULT_TOKENS: '2000',
      LLM_PROVIDERS: JSON.stringify({ slow: { base_url: 'http://h/v1', timeout_ms: 90_000, call_budget_ms: 300_000 } }),
    });
    expect(sut.llmLimits).toEqual({
      nodeTimeoutMs: 30_000,
      callBudgetMs: 20_000,
      maxToolResultTokens: 2000,
      toolSelectionLearning: true,
    });
    expect(sut.providers.slow).toMatchObject({ timeout_ms: 90_000, call_budget_ms: 300_000 });
    expect(() =>
      loadConfig({ LLM_PROVIDERS: JSON.stringify({ slow: { base_url: 'http://h/v1', timeout_ms: 200_000 } }) }),
    ).toThrow('provider "slow": timeout_ms (200000) is above its call budget (180000 ms)');
    expect(() =>
      loadConfig({
        LLM_CALL_BUDGET_MS: '500000',
        LLM_PROVIDERS: JSON.stringify({
          slow: { base_url: 'http://h/v1', timeout_ms: 200_000, call_budget_ms: 100_000 },
        }),
      }),
    ).toThrow('call budget (100000 ms)');
    expect(() => loadConfig({ LLM_CALL_BUDGET_MS: '0', LLM_NODE_TIMEOUT_MS: 'soon' })).toThrow(
      /LLM_NODE_TIMEOUT_MS[\s\S]*LLM_CALL_BUDGET_MS|LLM_CALL_BUDGET_MS[\s\S]*LLM_NODE_TIMEOUT_MS/,
    );
  });

  it('should read context windows per provider and per model, and refuse malformed ones at start', () => {
    const local = {
      base_url: 'http://h/v1',
      context_window: 16_384,
      models: { 'qwen3:32b': { context_window: 40_960 } },
    };
    expect(loadConfig({ LLM_PROVIDERS: JSON.stringify({ local }) }).providers.local).toMatchObject(local);
    expect(() =>
      loadConfig({ LLM_PROVIDERS: JSON.stringify({ local: { base_url: 'http://h/v1', context_window: 10 } }) }),
    ).toThrow('provider "local": context_window');
    expect(() =>
      loadConfig({
        LLM_PROVIDERS: JSON.stringify({ local: { base_url: 'http://h/v1', models: { m: { window: 4096 } } } }),
      }),
    ).toThrow('provider "local": models.m');
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

  it('should size the code sandbox and refuse a per-user cap above its slots', () => {
    expect(loadConfig({}).code).toMatchObject({ processes: 2, isolatesPerProcess: 8, maxQueueMs: 30000 });
    expect(loadConfig({}).code.maxCallsPerUser).toBeUndefined();
    const sut = loadConfig({ CODE_SANDBOX_PROCESSES: '3', CODE_SANDBOX_MAX_CALLS_PER_USER: '4' });
    expect(sut.code).toMatchObject({ processes: 3, maxCallsPerUser: 4 });
    expect(() => loadConfig({ CODE_SANDBOX_PROCESSES: '1', CODE_SANDBOX_MAX_CALLS_PER_USER: '9' })).toThrow(
      "CODE_SANDBOX_MAX_CALLS_PER_USER (9) is above the sandbox's 8 slots",
    );
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

  it('should read the protocol of a provider, openai-chat when it names none', () => {
    const sut = loadConfig({
      LLM_PROVIDERS: JSON.stringify({
        local: { protocol: 'openai-chat', base_url: 'http://127.0.0.1:11434/v1', default_model: 'qwen3' },
        plain: { base_url: 'http://h/v1' },
      }),
    });
    expect(sut.providers.local).toMatchObject({ protocol: 'openai-chat' });
    expect(sut.providers.plain.protocol).toBeUndefined();
  });

  it('should define the anthropic provider from ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL only when one is set', () => {
    expect(loadConfig({}).providers.anthropic).toBeUndefined();
    expect(loadConfig({ ANTHROPIC_API_KEY: 'sk-ant' }).providers.anthropic).toEqual({
      protocol: 'anthropic',
      base_url: 'https://api.anthropic.com',
      api_key: 'sk-ant',
      default_model: undefined,
    });
    const sut = loadConfig({ ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/', ANTHROPIC_DEFAULT_MODEL: 'claude-sonnet-4-5' });
    expect(sut.providers.anthropic).toMatchObject({
      base_url: 'http://127.0.0.1:9/',
      default_model: 'claude-sonnet-4-5',
    });
    expect(() => loadConfig({ ANTHROPIC_BASE_URL: 'ftp://x' })).toThrow(
      'ANTHROPIC_BASE_URL must start with http:// or https://',
    );
  });
});

describe(`${loadConfig.name} problems`, () => {
  const problemsOf = (env: Record<string, string>): string[] => {
    try {
      loadConfig(env);
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
    return [];
  };

  it('should list every invalid value in one error', () => {
    const sut = problemsOf({
      OUTBOUND_ALLOW_PRIVATE: '10.0.0.0/8, 10.0.0.0/33, not-an-ip',
      LOG_LEVEL: 'verbose',
      QUERY_DATABASE_URL: 'postgres://reader:pw@db/shop',
      CODE_TIMEOUT_MS: '20000',
      CODE_MAX_TIMEOUT_MS: '10000',
      CODE_MEMORY_MB: '512',
      CODE_MAX_MEMORY_MB: '256',
      QUERY_ROW_LIMIT: '1.5',
      LOG_PRETTY: 'maybe',
      OUTBOUND_MAX_RESPONSE_BYTES: '2 tb',
    });
    expect(sut).toEqual([
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"',
      'LOG_PRETTY must be true or false, got "maybe"',
      'OUTBOUND_ALLOW_PRIVATE[1] "10.0.0.0/33" is not a CIDR or IP address',
      'OUTBOUND_ALLOW_PRIVATE[2] "not-an-ip" is not a CIDR or IP address',
      'OUTBOUND_MAX_RESPONSE_BYTES must be a size like 1048576, 512kb or 1mb, got "2 tb"',
      'QUERY_DATABASE_URL must start with mysql:, mariadb:, sqlite:',
      'QUERY_ROW_LIMIT must be an integer between 1 and 10000, got "1.5"',
      'CODE_TIMEOUT_MS (20000) is above CODE_MAX_TIMEOUT_MS (10000)',
      'CODE_MEMORY_MB (512) is above CODE_MAX_MEMORY_MB (256)',
    ]);
  });

  it('should never quote a URL or JSON value, which may hold a password or key', () => {
    const sut = problemsOf({
      DATABASE_URL: 'mysql://user:hunter2@',
      QUERY_DATABASE_URL: 'sqlite::memory:',
      LLM_PROVIDERS: '{"x": {"base_url": "ftp://nope", "api_key": "sk-secret", "timeout_ms": "soon"}}',
    });
    expect(sut).toEqual([
      expect.stringMatching(/^DATABASE_URL /),
      'QUERY_DATABASE_URL needs a SQLite file path',
      'LLM_PROVIDERS provider "x": base_url must start with http:// or https://',
      expect.stringMatching(/^LLM_PROVIDERS provider "x": timeout_ms /),
    ]);
    expect(sut.join('\n')).not.toMatch(/hunter2|sk-secret/);
  });

  it('should list an unknown protocol and a missing base_url of every provider, never quoting a key', () => {
    const sut = problemsOf({
      LLM_PROVIDERS: JSON.stringify({
        claude: { protocol: 'antropic', base_url: 'https://api.anthropic.com', api_key: 'sk-ant-secret' },
        local: { protocol: 'openai-chat', api_key: 'sk-local-secret' },
      }),
    });
    expect(sut).toEqual([
      'LLM_PROVIDERS provider "claude": protocol must be one of openai-chat, anthropic, openai-responses, ollama',
      'LLM_PROVIDERS provider "local": base_url is required',
    ]);
    expect(sut.join('\n')).not.toMatch(/secret/);
  });

  it('should accept single addresses and IPv6 in OUTBOUND_ALLOW_PRIVATE and treat blank values as unset', () => {
    const sut = loadConfig({ OUTBOUND_ALLOW_PRIVATE: '127.0.0.1, fd00::/8', PORT: '  ', LOG_LEVEL: 'debug' });
    expect(sut.outbound.allowPrivate).toEqual(['127.0.0.1', 'fd00::/8']);
    expect(sut.port).toBe(3000);
    expect(sut.log.level).toBe('debug');
  });

  it('should read a supported QUERY_DATABASE_URL with its limits', () => {
    const sut = loadConfig({ QUERY_DATABASE_URL: 'mariadb://reader:pw@db/shop', QUERY_ROW_LIMIT: '50' });
    expect(sut.queryDatabase).toEqual({ url: 'mariadb://reader:pw@db/shop', rowLimit: 50, timeoutMs: 5000 });
  });
});

describe(`${loadConfig.name} queue mode`, () => {
  it('should stay embedded as ROLE=all without REDIS_URL', () => {
    const sut = loadConfig({});
    expect(sut).toMatchObject({ redisUrl: null, role: 'all', runLeaseMs: 30000, redisPrefix: 'toolflow' });
  });

  it('should read REDIS_URL, ROLE and RUN_LEASE_MS', () => {
    const sut = loadConfig({ REDIS_URL: 'redis://cache:6379/2', ROLE: 'worker', RUN_LEASE_MS: '5000' });
    expect(sut).toMatchObject({ redisUrl: 'redis://cache:6379/2', role: 'worker', runLeaseMs: 5000 });
  });

  it('should refuse ROLE api or worker without REDIS_URL, naming both variables', () => {
    expect(() => loadConfig({ ROLE: 'worker' })).toThrow(/ROLE=worker needs REDIS_URL/);
    expect(() => loadConfig({ ROLE: 'api' })).toThrow(/ROLE=api needs REDIS_URL/);
  });

  it('should name a bad ROLE or REDIS_URL without echoing the URL', () => {
    expect(() => loadConfig({ ROLE: 'both' })).toThrow(/ROLE must be one of all, api, worker/);
    const problem = () => loadConfig({ REDIS_URL: 'redis://:s3cret@cache:6379/queue' });
    expect(problem).toThrow(/REDIS_URL must look like redis:\/\/host:port/);
    expect(problem).not.toThrow(/s3cret/);
    expect(() => loadConfig({ REDIS_URL: 'http://cache:6379' })).toThrow(/REDIS_URL must start with redis:, rediss:/);
  });
});
