import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ProviderConfig } from '../llm/provider-registry';

export type DatabaseConfig =
  { type: 'sqlite'; database: string; url: string } | { type: 'mysql'; url: string; database: string };

/** Every setting of the service, read from the environment once at boot. Only this folder reads process.env. */
export interface AppConfig {
  env: 'production' | 'development' | 'test';
  port: number;
  host: string;
  database: DatabaseConfig;
  migrationsRun: boolean;
  adminApiKey: string | null;
  bodyLimitBytes: number;
  /** Browser origins allowed by CORS, each exactly as a browser sends it (`https://console.example.com`). */
  corsOrigins: string[];
  log: { level: string; pretty: boolean };
  outbound: { allowPrivate: string[]; timeoutMs: number; maxResponseBytes: number; maxRedirects: number };
  files: { root: string | null; maxBytes: number };
  queryDatabase: { url: string; rowLimit: number; timeoutMs: number } | null;
  code: {
    defaultTimeoutMs: number;
    maxTimeoutMs: number;
    defaultMemoryMb: number;
    maxMemoryMb: number;
    maxOutputBytes: number;
  };
  tools: { defaultTimeoutMs: number; logMaxChars: number };
  workflows: { maxDepth: number; waitTimeoutMs: number; maxConcurrentRuns: number };
  /** How long writes of run state and events retry while the database is unavailable. */
  runDbRetryMs: number;
  /** Time limit of an LLM node that sets no `timeout_ms`; the most one model call may take, retries included. */
  llmLimits: { nodeTimeoutMs: number; callBudgetMs: number };
  providers: Record<string, ProviderConfig>;
  defaultProvider: string;
}

export class ConfigError extends Error {
  constructor(problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  string(name: string, fallback: string): string {
    const value = this.env[name];
    return value === undefined || value === '' ? fallback : value;
  }

  optional(name: string): string | null {
    const value = this.env[name];
    return value === undefined || value === '' ? null : value;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      this.problems.push(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.env[name]?.toLowerCase();
    if (raw === undefined || raw === '') return fallback;
    if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
    if (['0', 'false', 'no', 'off'].includes(raw)) return false;
    this.problems.push(`${name} must be true or false, got "${raw}"`);
    return fallback;
  }

  list(name: string): string[] {
    return (this.env[name] ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  }

  bytes(name: string, fallback: number): number {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    const match = /^(\d+)\s*(b|kb|mb|gb)?$/i.exec(raw.trim());
    if (!match) {
      this.problems.push(`${name} must be a size like 1048576, 512kb or 1mb, got "${raw}"`);
      return fallback;
    }
    const unit = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(match[2] ?? 'b').toLowerCase() as 'b'];
    return Number(match[1]) * unit;
  }
}

function parseDatabase(url: string, problems: string[]): DatabaseConfig {
  if (url.startsWith('mysql://') || url.startsWith('mariadb://')) {
    try {
      const parsed = new URL(url.replace(/^mariadb:/, 'mysql:'));
      const database = parsed.pathname.replace(/^\//, '');
      if (!database) problems.push('DATABASE_URL must name a database, e.g. mysql://user:pass@host:3306/toolflow');
      return { type: 'mysql', url: parsed.toString(), database };
    } catch {
      problems.push('DATABASE_URL is not a valid URL');
    }
  } else if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length).replace(/^\/\//, '');
    return { type: 'sqlite', database: file === ':memory:' ? file : resolve(file), url };
  } else {
    problems.push('DATABASE_URL must start with mysql://, mariadb:// or sqlite:');
  }
  return { type: 'sqlite', database: resolve('data/toolflow.sqlite'), url: 'sqlite:data/toolflow.sqlite' };
}

function parseProviders(reader: EnvReader, env: Env): Record<string, ProviderConfig> {
  const providers: Record<string, ProviderConfig> = {
    openai: {
      base_url: reader.string('OPENAI_BASE_URL', 'https://api.openai.com/v1'),
      api_key: reader.optional('OPENAI_API_KEY') ?? undefined,
      default_model: reader.optional('OPENAI_DEFAULT_MODEL') ?? undefined,
    },
  };
  const sources: Array<[string, string]> = [];
  const file = reader.optional('LLM_PROVIDERS_FILE');
  if (file) {
    try {
      sources.push([`LLM_PROVIDERS_FILE (${file})`, readFileSync(file, 'utf8')]);
    } catch (error) {
      reader.problems.push(`LLM_PROVIDERS_FILE cannot be read: ${(error as Error).message}`);
    }
  }
  if (env.LLM_PROVIDERS) sources.push(['LLM_PROVIDERS', env.LLM_PROVIDERS]);
  for (const [label, text] of sources) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      reader.problems.push(`${label} is not valid JSON`);
      continue;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      reader.problems.push(`${label} must be an object of {name: {base_url, api_key?, default_model?, timeout_ms?}}`);
      continue;
    }
    for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
      const entry = value as Partial<ProviderConfig> | null;
      if (!entry || typeof entry.base_url !== 'string' || !/^https?:\/\//.test(entry.base_url)) {
        reader.problems.push(`${label}: provider "${name}" needs a base_url starting with http:// or https://`);
        continue;
      }
      providers[name] = {
        base_url: entry.base_url,
        api_key: typeof entry.api_key === 'string' ? entry.api_key : undefined,
        default_model: typeof entry.default_model === 'string' ? entry.default_model : undefined,
        timeout_ms: typeof entry.timeout_ms === 'number' ? entry.timeout_ms : undefined,
        call_budget_ms: typeof entry.call_budget_ms === 'number' ? entry.call_budget_ms : undefined,
        max_retries: typeof entry.max_retries === 'number' ? entry.max_retries : undefined,
      };
    }
  }
  return providers;
}

function parseOrigins(origins: string[], problems: string[]): string[] {
  for (const origin of origins) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = null;
    }
    if (parsed?.origin !== origin) {
      problems.push(`CORS_ORIGINS: "${origin}" is not an origin like https://console.example.com (no path or slash)`);
    }
  }
  return origins;
}

/** Reads and validates the environment; throws ConfigError listing every problem at once. */
export function loadConfig(env: Env = process.env): AppConfig {
  const reader = new EnvReader(env);
  const nodeEnv = reader.string('NODE_ENV', 'development');
  const database = parseDatabase(reader.string('DATABASE_URL', 'sqlite:data/toolflow.sqlite'), reader.problems);
  const queryUrl = reader.optional('QUERY_DATABASE_URL');
  const providers = parseProviders(reader, env);
  const defaultProvider = reader.string('LLM_DEFAULT_PROVIDER', 'openai');
  if (!providers[defaultProvider]) reader.problems.push(`LLM_DEFAULT_PROVIDER "${defaultProvider}" is not configured`);

  const config: AppConfig = {
    env: nodeEnv === 'production' || nodeEnv === 'test' ? nodeEnv : 'development',
    port: reader.int('PORT', 3000, 0, 65535),
    host: reader.string('HOST', '0.0.0.0'),
    database,
    migrationsRun: reader.bool('DB_MIGRATIONS_RUN', true),
    adminApiKey: reader.optional('ADMIN_API_KEY'),
    bodyLimitBytes: reader.bytes('BODY_LIMIT', 1024 * 1024),
    corsOrigins: parseOrigins(reader.list('CORS_ORIGINS'), reader.problems),
    log: { level: reader.string('LOG_LEVEL', 'info'), pretty: reader.bool('LOG_PRETTY', false) },
    outbound: {
      allowPrivate: reader.list('OUTBOUND_ALLOW_PRIVATE'),
      timeoutMs: reader.int('OUTBOUND_TIMEOUT_MS', 15000, 100, 120000),
      maxResponseBytes: reader.bytes('OUTBOUND_MAX_RESPONSE_BYTES', 1024 * 1024),
      maxRedirects: reader.int('OUTBOUND_MAX_REDIRECTS', 5, 0, 10),
    },
    files: { root: reader.optional('FILE_READ_ROOT'), maxBytes: reader.bytes('FILE_READ_MAX_BYTES', 1024 * 1024) },
    queryDatabase: queryUrl
      ? {
          url: queryUrl,
          rowLimit: reader.int('QUERY_ROW_LIMIT', 200, 1, 10000),
          timeoutMs: reader.int('QUERY_TIMEOUT_MS', 5000, 100, 120000),
        }
      : null,
    code: {
      defaultTimeoutMs: reader.int('CODE_TIMEOUT_MS', 1000, 10, 60000),
      maxTimeoutMs: reader.int('CODE_MAX_TIMEOUT_MS', 10000, 10, 300000),
      defaultMemoryMb: reader.int('CODE_MEMORY_MB', 64, 8, 4096),
      maxMemoryMb: reader.int('CODE_MAX_MEMORY_MB', 256, 8, 4096),
      maxOutputBytes: reader.bytes('CODE_MAX_OUTPUT_BYTES', 1024 * 1024),
    },
    tools: {
      defaultTimeoutMs: reader.int('TOOL_TIMEOUT_MS', 30000, 100, 600000),
      logMaxChars: reader.int('TOOL_LOG_MAX_CHARS', 10000, 100, 10_000_000),
    },
    workflows: {
      maxDepth: reader.int('WORKFLOW_MAX_DEPTH', 3, 1, 20),
      waitTimeoutMs: reader.int('RUN_WAIT_TIMEOUT_MS', 120000, 1000, 3_600_000),
      maxConcurrentRuns: reader.int('MAX_CONCURRENT_RUNS', 16, 1, 1000),
    },
    runDbRetryMs: reader.int('RUN_DB_RETRY_MS', 60000, 0, 3_600_000),
    llmLimits: {
      nodeTimeoutMs: reader.int('LLM_NODE_TIMEOUT_MS', 600_000, 100, 3_600_000),
      callBudgetMs: reader.int('LLM_CALL_BUDGET_MS', 180_000, 100, 3_600_000),
    },
    providers,
    defaultProvider,
  };
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return config;
}
