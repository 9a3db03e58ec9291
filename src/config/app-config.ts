import { resolve } from 'node:path';
import { z } from 'zod';
import { MIN_CONTEXT_WINDOW, type ModelPrice, PROVIDER_PROTOCOLS, type ProviderConfig } from './provider-config';
import {
  bool,
  bytes,
  cidrList,
  type Env,
  envField,
  int,
  json,
  list,
  jsonFile,
  oneOf,
  optionalText,
  optionalUrl,
  readSettings,
  type SettingsOf,
  text,
  url,
} from './env-field';

export type DatabaseConfig =
  { type: 'sqlite'; database: string; url: string } | { type: 'mysql'; url: string; database: string };

/** DATABASE_TIMEOUT_MS when unset; also what tools that open the database without the app's config use. */
export const DEFAULT_DATABASE_TIMEOUT_MS = 10_000;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const MB = 1024 * 1024;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const ROLES = ['all', 'api', 'worker'] as const;
export type ProcessRole = (typeof ROLES)[number];
const HTTP_URL = /^https?:\/\/\S+$/i;

function toDatabaseConfig(url: string, ctx: z.RefinementCtx): DatabaseConfig {
  if (/^sqlite:/i.test(url)) {
    const file = url.slice('sqlite:'.length).replace(/^\/\//, '');
    return { type: 'sqlite', database: file === ':memory:' ? file : resolve(file), url };
  }
  let parsed: URL;
  try {
    parsed = new URL(url.replace(/^mariadb:/i, 'mysql:'));
  } catch {
    ctx.addIssue({ code: 'custom', message: 'is not a valid URL' });
    return z.NEVER;
  }
  const database = parsed.pathname.replace(/^\//, '');
  if (!database)
    ctx.addIssue({ code: 'custom', message: 'must name a database, e.g. mysql://user:pass@host:3306/toolflow' });
  return { type: 'mysql', url: parsed.toString(), database };
}

function toQueryTarget(url: string, ctx: z.RefinementCtx): string {
  if (/^sqlite:/i.test(url)) {
    const file = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (file === '' || file === ':memory:') ctx.addIssue({ code: 'custom', message: 'needs a SQLite file path' });
    return url;
  }
  if (!URL.canParse(url)) ctx.addIssue({ code: 'custom', message: 'is not a valid URL' });
  return url;
}

function toRedisUrl(url: string, ctx: z.RefinementCtx): string {
  if (!URL.canParse(url)) ctx.addIssue({ code: 'custom', message: 'is not a valid URL' });
  else if (!/^\/?(\d+)?$/.test(new URL(url).pathname)) {
    ctx.addIssue({ code: 'custom', message: 'must look like redis://host:port or redis://host:port/db (db a number)' });
  }
  return url;
}

function toOtlpEndpoint(url: string, ctx: z.RefinementCtx): string {
  if (!URL.canParse(url)) ctx.addIssue({ code: 'custom', message: 'is not a valid URL' });
  return url.replace(/\/+$/, '');
}

const isOrigin = (value: string) => URL.canParse(value) && new URL(value).origin === value;

/** A price per million tokens; see ModelPrice. */
export const MODEL_PRICE = z
  .object({
    input: z.number().min(0),
    output: z.number().min(0),
    cached_input: z.number().min(0).optional(),
    reasoning: z.number().min(0).optional(),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, { error: 'must be an ISO 4217 code such as USD' })
      .optional(),
  })
  .strict();

const PROVIDER = z.object({
  protocol: z.enum(PROVIDER_PROTOCOLS, { error: `must be one of ${PROVIDER_PROTOCOLS.join(', ')}` }).optional(),
  base_url: z.string({ error: 'is required' }).regex(HTTP_URL, { error: 'must start with http:// or https://' }),
  api_key: z.string().optional(),
  default_model: z.string().optional(),
  timeout_ms: z.number().int().positive().optional(),
  call_budget_ms: z.number().int().positive().optional(),
  max_retries: z.number().int().min(0).optional(),
  context_window: z.number().int().min(MIN_CONTEXT_WINDOW).optional(),
  models: z
    .record(
      z.string(),
      z
        .object({ context_window: z.number().int().min(MIN_CONTEXT_WINDOW).optional(), price: MODEL_PRICE.optional() })
        .strict(),
    )
    .optional(),
});

/** `PRICES_FILE`: prices by model (`gpt-4o`) or by provider and model (`openai/gpt-4o`, which wins). */
const PRICES = z.record(z.string(), MODEL_PRICE, {
  error: 'must be an object of {"model" or "provider/model": {input, output, cached_input?, reasoning?, currency?}}',
});

/** `{name: {base_url, …}}`; each provider's problems are named after it. */
const PROVIDERS = z
  .record(z.string(), z.unknown(), {
    error:
      'must be an object of {name: {protocol?, base_url, api_key?, default_model?, timeout_ms?, call_budget_ms?, ' +
      'max_retries?, context_window?, models?: {model: {context_window?, price?}}}}',
  })
  .transform((entries, ctx) => {
    const providers: Record<string, ProviderConfig> = {};
    for (const [name, entry] of Object.entries(entries)) {
      const result = PROVIDER.safeParse(entry);
      if (result.success) providers[name] = result.data;
      for (const issue of result.error?.issues ?? []) {
        const at = issue.path.length > 0 ? `${issue.path.join('.')} ` : '';
        ctx.addIssue({ code: 'custom', message: `provider "${name}": ${at}${issue.message}` });
      }
    }
    return providers;
  });

/**
 * Every setting of the service: one entry per environment variable, with its type, default and
 * limits. Adding a variable is adding its entry here; AppConfig follows.
 */
const SETTINGS = {
  port: int('PORT', 3000, 0, 65535),
  host: text('HOST', '0.0.0.0'),
  database: url('DATABASE_URL', ['mysql', 'mariadb', 'sqlite'], toDatabaseConfig, 'sqlite:data/toolflow.sqlite'),
  migrationsRun: bool('DB_MIGRATIONS_RUN', true),
  /**
   * How long a database connection, a statement or (SQLite) a lock may keep a caller waiting before it fails as
   * "database unavailable": a hung server then costs a request a 503 after this, not the whole pause.
   */
  databaseTimeoutMs: int('DATABASE_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUT_MS, 100, 600_000),
  adminApiKey: optionalText('ADMIN_API_KEY', false),
  bodyLimitBytes: bytes('BODY_LIMIT', MB),
  /** Browser origins allowed by CORS, each exactly as a browser sends it (`https://console.example.com`). */
  corsOrigins: list(
    'CORS_ORIGINS',
    z.string().refine(isOrigin, {
      error: (issue) => `"${String(issue.input)}" is not an origin like https://console.example.com (no path or slash)`,
    }),
  ),
  log: { level: oneOf('LOG_LEVEL', LOG_LEVELS, 'info'), pretty: bool('LOG_PRETTY', false) },
  outbound: {
    allowPrivate: cidrList('OUTBOUND_ALLOW_PRIVATE'),
    timeoutMs: int('OUTBOUND_TIMEOUT_MS', 15000, 100, 120000),
    maxResponseBytes: bytes('OUTBOUND_MAX_RESPONSE_BYTES', MB),
    maxRedirects: int('OUTBOUND_MAX_REDIRECTS', 5, 0, 10),
  },
  files: { root: optionalText('FILE_READ_ROOT'), maxBytes: bytes('FILE_READ_MAX_BYTES', MB) },
  query: {
    url: optionalUrl('QUERY_DATABASE_URL', ['mysql', 'mariadb', 'sqlite'], toQueryTarget),
    rowLimit: int('QUERY_ROW_LIMIT', 200, 1, 10000),
    timeoutMs: int('QUERY_TIMEOUT_MS', 5000, 100, 120000),
  },
  code: {
    defaultTimeoutMs: int('CODE_TIMEOUT_MS', 1000, 10, 60000),
    maxTimeoutMs: int('CODE_MAX_TIMEOUT_MS', 10000, 10, 300000),
    defaultMemoryMb: int('CODE_MEMORY_MB', 64, 8, 4096),
    maxMemoryMb: int('CODE_MAX_MEMORY_MB', 256, 8, 4096),
    maxOutputBytes: bytes('CODE_MAX_OUTPUT_BYTES', MB),
    /** Sandbox child processes, and the calls (one isolate and thread each) every process runs at once. */
    processes: int('CODE_SANDBOX_PROCESSES', 2, 1, 64),
    isolatesPerProcess: int('CODE_SANDBOX_ISOLATES_PER_PROCESS', 8, 1, 256),
    /** Calls one user may run at once; unset: half of all slots. */
    maxCallsPerUser: envField(
      'CODE_SANDBOX_MAX_CALLS_PER_USER',
      z.coerce
        .number({ error: 'must be a positive integer' })
        .int({ error: 'must be a positive integer' })
        .min(1, { error: 'must be a positive integer' })
        .optional(),
    ),
    /** How long a call may wait for a sandbox slot; the wait never counts against its own limits. */
    maxQueueMs: int('CODE_SANDBOX_QUEUE_TIMEOUT_MS', 30000, 100, 600000),
    /** Python (Pyodide) processes; each runs one call at a time, for one user at a time. */
    pythonProcesses: int('PYTHON_SANDBOX_PROCESSES', 2, 1, 64),
    /** `namespaces`: own user, network and PID namespaces (needs unshare); `none`: the permission model only. */
    pythonIsolation: oneOf('PYTHON_SANDBOX_ISOLATION', ['namespaces', 'none'] as const, 'namespaces'),
  },
  tools: {
    defaultTimeoutMs: int('TOOL_TIMEOUT_MS', 30000, 100, 600000),
    logMaxChars: int('TOOL_LOG_MAX_CHARS', 10000, 100, 10_000_000),
  },
  workflows: {
    maxDepth: int('WORKFLOW_MAX_DEPTH', 3, 1, 20),
    waitTimeoutMs: int('RUN_WAIT_TIMEOUT_MS', 120000, 1000, 3_600_000),
    maxConcurrentRuns: int('MAX_CONCURRENT_RUNS', 16, 1, 1000),
    /** Runs waiting for a slot (not counting running ones); past it, new runs get 429. */
    maxQueuedRuns: int('MAX_QUEUED_RUNS', 1000, 1, 1_000_000),
    /** Nodes of one run that execute at once (independent branches run concurrently). */
    maxParallelNodes: int('RUN_MAX_PARALLEL_NODES', 4, 1, 64),
    /** Items a map node may run over; past it, the node fails naming the count. */
    mapMaxItems: int('MAP_MAX_ITEMS', 1000, 1, 1_000_000),
    /** Items of one map node that run at once, whatever its `concurrency` asks. */
    mapMaxConcurrency: int('MAP_MAX_CONCURRENCY', 16, 1, 64),
  },
  /** Queue mode (BullMQ on Redis) when set; unset: runs execute embedded, in this process. */
  redisUrl: optionalUrl('REDIS_URL', ['redis', 'rediss'], toRedisUrl),
  /** Prefix of every Redis key and channel, so several deployments (or tests) can share one Redis. */
  redisPrefix: text('REDIS_KEY_PREFIX', 'toolflow'),
  /** What this process does: serve the API and enqueue (`api`), execute runs (`worker`), or both. */
  role: oneOf('ROLE', ROLES, 'all'),
  /** How long a worker's hold on a run lasts without a heartbeat; a dead worker's runs are taken over after it. */
  runLeaseMs: int('RUN_LEASE_MS', 30000, 1000, 3_600_000),
  /** How long writes of run state and events retry while the database is unavailable. */
  runDbRetryMs: int('RUN_DB_RETRY_MS', 60000, 0, 3_600_000),
  /** On SIGTERM, how long running runs may go on before they are handed back (left resumable from their checkpoint). */
  shutdownGraceMs: int('SHUTDOWN_GRACE_MS', 10000, 0, 3_600_000),
  /** How often a process refreshes the heartbeat of the test runs it runs; 3 missed: the test run is interrupted. */
  testRunHeartbeatMs: int('TEST_RUN_HEARTBEAT_MS', 5000, 100, 600_000),
  /** Requests per minute per API key; past it, 429 with Retry-After. */
  rateLimitPerMinute: int('RATE_LIMIT_PER_MINUTE', 1200, 1, 1_000_000),
  telemetry: {
    /** Serve Prometheus metrics at GET /metrics (no API key, like /health). */
    metricsEnabled: bool('METRICS_ENABLED', true),
    /** OTLP/HTTP base URL (`/v1/traces` is appended); unset: no tracing SDK starts. */
    otlpEndpoint: optionalUrl('OTEL_EXPORTER_OTLP_ENDPOINT', ['http', 'https'], toOtlpEndpoint),
    serviceName: text('OTEL_SERVICE_NAME', 'toolflow'),
  },
  /** Time limit of an LLM node that sets no `timeout_ms`; the most one model call may take, retries included. */
  llmLimits: {
    nodeTimeoutMs: int('LLM_NODE_TIMEOUT_MS', 600_000, 100, 3_600_000),
    callBudgetMs: int('LLM_CALL_BUDGET_MS', 180_000, 100, 3_600_000),
    /** Tool results longer than this many tokens are cut for the model (an LLM node may set its own). */
    maxToolResultTokens: int('LLM_MAX_TOOL_RESULT_TOKENS', 8000, 100, 1_000_000),
    /** Tool selection learns, per owner, which task words led to which tool (terms in memory, never prompts). */
    toolSelectionLearning: bool('TOOL_SELECTION_LEARNING', true),
  },
  llm: {
    openai: {
      base_url: envField(
        'OPENAI_BASE_URL',
        z
          .string()
          .regex(HTTP_URL, { error: 'must start with http:// or https://' })
          .default('https://api.openai.com/v1'),
      ),
      api_key: optionalText('OPENAI_API_KEY', false),
      default_model: optionalText('OPENAI_DEFAULT_MODEL'),
    },
    /** Defines the provider named "anthropic" (Messages API) when the key or the base URL is set. */
    anthropic: {
      base_url: envField(
        'ANTHROPIC_BASE_URL',
        z.string().regex(HTTP_URL, { error: 'must start with http:// or https://' }).optional(),
        false,
      ),
      api_key: optionalText('ANTHROPIC_API_KEY', false),
      default_model: optionalText('ANTHROPIC_DEFAULT_MODEL'),
    },
    providersFile: jsonFile('LLM_PROVIDERS_FILE', PROVIDERS),
    providers: json('LLM_PROVIDERS', PROVIDERS),
    defaultProvider: text('LLM_DEFAULT_PROVIDER', 'openai'),
    prices: jsonFile('PRICES_FILE', PRICES),
  },
};

type Settings = SettingsOf<typeof SETTINGS>;

/** A default that may not exceed its maximum: [default variable, maximum variable, both values]. */
const NOT_ABOVE: Array<[string, string, (settings: Settings) => [number | undefined, number | undefined]]> = [
  ['CODE_TIMEOUT_MS', 'CODE_MAX_TIMEOUT_MS', ({ code }) => [code.defaultTimeoutMs, code.maxTimeoutMs]],
  ['CODE_MEMORY_MB', 'CODE_MAX_MEMORY_MB', ({ code }) => [code.defaultMemoryMb, code.maxMemoryMb]],
];

/** Every setting of the service, read from the environment once at boot. Only this folder reads process.env. */
export type AppConfig = Omit<Settings, 'query' | 'llm'> & {
  queryDatabase: { url: string; rowLimit: number; timeoutMs: number } | null;
  providers: Record<string, ProviderConfig>;
  defaultProvider: string;
  /** `PRICES_FILE`'s entries (empty without one). */
  prices: Record<string, ModelPrice>;
};

/** Reads and validates the environment; throws ConfigError listing every problem at once. */
/** The environment's configuration with some variables set otherwise (the CLI's embedded service). */
export const loadConfigWith = (overrides: Env): AppConfig => loadConfig({ ...process.env, ...overrides });

export function loadConfig(env: Env = process.env): AppConfig {
  const problems: string[] = [];
  const { query, llm, ...settings } = readSettings(SETTINGS, env, problems);
  for (const [name, maxName, pick] of NOT_ABOVE) {
    const [value, max] = pick({ query, llm, ...settings });
    if (value !== undefined && max !== undefined && value > max) {
      problems.push(`${name} (${value}) is above ${maxName} (${max})`);
    }
  }
  const { processes, isolatesPerProcess, maxCallsPerUser } = settings.code;
  if (maxCallsPerUser !== undefined && maxCallsPerUser > processes * isolatesPerProcess) {
    problems.push(
      `CODE_SANDBOX_MAX_CALLS_PER_USER (${maxCallsPerUser}) is above the sandbox's ${processes * isolatesPerProcess} ` +
        'slots (CODE_SANDBOX_PROCESSES x CODE_SANDBOX_ISOLATES_PER_PROCESS)',
    );
  }
  if (settings.role !== 'all' && !settings.redisUrl) {
    problems.push(
      `ROLE=${settings.role} needs REDIS_URL (queue mode); without it everything runs in one process (ROLE=all)`,
    );
  }
  const { api_key, default_model, base_url } = llm.openai;
  const anthropic = llm.anthropic;
  const providers: Record<string, ProviderConfig> = {
    openai: { base_url, api_key: api_key ?? undefined, default_model: default_model ?? undefined },
    ...(anthropic.api_key !== null || anthropic.base_url !== undefined
      ? {
          anthropic: {
            protocol: 'anthropic',
            base_url: anthropic.base_url ?? 'https://api.anthropic.com',
            api_key: anthropic.api_key ?? undefined,
            default_model: anthropic.default_model ?? undefined,
          },
        }
      : {}),
    ...llm.providersFile,
    ...llm.providers,
  };
  for (const [name, provider] of Object.entries(providers)) {
    const budget = provider.call_budget_ms ?? settings.llmLimits.callBudgetMs;
    if (provider.timeout_ms !== undefined && budget !== undefined && provider.timeout_ms > budget) {
      problems.push(
        `provider "${name}": timeout_ms (${provider.timeout_ms}) is above its call budget (${budget} ms); ` +
          'raise its call_budget_ms or LLM_CALL_BUDGET_MS',
      );
    }
  }
  if (llm.defaultProvider !== undefined && !providers[llm.defaultProvider]) {
    problems.push(`LLM_DEFAULT_PROVIDER "${llm.defaultProvider}" is not configured`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    ...settings,
    queryDatabase: query.url ? { url: query.url, rowLimit: query.rowLimit, timeoutMs: query.timeoutMs } : null,
    providers,
    defaultProvider: llm.defaultProvider,
    prices: llm.prices ?? {},
  };
}
