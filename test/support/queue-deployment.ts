import { type ChildApp, startChildApp, stopChildApp } from './child-app';
import type { OpenAITestServer } from './openai-test-server';
import { throwawayDatabase } from './test-app';
import { dropRedisPrefix, testRedisUrl, uniqueRedisPrefix } from './test-redis';
import { llmEnv } from './workflow-fixtures';

export type ProcessRole = 'all' | 'api' | 'worker';

/**
 * A queue-mode deployment made of ToolFlow child processes: a throwaway database, a Redis key prefix of its
 * own on the test Redis, and any number of api and worker processes started (and restarted) by the test.
 */
export class QueueDeployment {
  /** Every process started so far, running or not. */
  readonly processes: ChildApp[] = [];
  readonly prefix = uniqueRedisPrefix();

  private constructor(
    readonly redisUrl: string,
    readonly database: { url: string; drop: () => Promise<void> },
    private readonly llm: OpenAITestServer,
    private readonly extraEnv: Record<string, string>,
    private readonly connectVia: (databaseUrl: string) => string,
  ) {}

  /**
   * `extraEnv` goes to every process (lease, grace, slots); `connectVia` rewrites the database URL the processes
   * connect to (a TCP proxy the test can cut). Needs TEST_REDIS_URL (see describeWithRedis).
   */
  static async create(
    llm: OpenAITestServer,
    extraEnv: Record<string, string> = {},
    connectVia: (databaseUrl: string) => string = (url) => url,
  ): Promise<QueueDeployment> {
    return new QueueDeployment(testRedisUrl() as string, await throwawayDatabase(), llm, extraEnv, connectVia);
  }

  env(role: ProcessRole): Record<string, string> {
    return llmEnv(this.llm, {
      DATABASE_URL: this.connectVia(this.database.url),
      REDIS_URL: this.redisUrl,
      REDIS_KEY_PREFIX: this.prefix,
      ROLE: role,
      CODE_SANDBOX_PROCESSES: '1',
      ...this.extraEnv,
    });
  }

  /** Starts one process per role, all at once (on a fresh database one migrates it, the others wait). */
  async start(...roles: ProcessRole[]): Promise<ChildApp[]> {
    const started = await Promise.all(roles.map((role) => startChildApp(this.env(role))));
    this.processes.push(...started);
    return started;
  }

  /** Starts one process with `overrides` on top of its role's environment (its own DATABASE_URL, limits). */
  async startWith(role: ProcessRole, overrides: Record<string, string>): Promise<ChildApp> {
    const started = await startChildApp({ ...this.env(role), ...overrides });
    this.processes.push(started);
    return started;
  }

  /** Kills what still runs, drops the database and the Redis keys. */
  async close(): Promise<void> {
    for (const child of this.processes) await stopChildApp(child);
    await this.database.drop();
    await dropRedisPrefix(this.redisUrl, this.prefix);
  }
}
