import { MysqlRunner } from './mysql-runner';
import type { QueryResult, ReadOnlyQueryOptions } from './query-result';
import type { QueryTarget } from './query-target';
import { SqliteRunner } from './sqlite-runner';

const runners = new Map<string, MysqlRunner | SqliteRunner>();

function runnerFor(target: QueryTarget): MysqlRunner | SqliteRunner {
  const key = target.kind === 'mysql' ? target.url : `sqlite:${target.file}`;
  let runner = runners.get(key);
  if (!runner) {
    runner = target.kind === 'mysql' ? new MysqlRunner(target.url) : new SqliteRunner(target.file);
    runners.set(key, runner);
  }
  return runner;
}

/**
 * Runs an already guarded statement with the database enforcing read-only access and the time
 * limit, never on the event loop. Pools and query processes are cached per target.
 */
export function runReadOnlyQuery(
  target: QueryTarget,
  sql: string,
  params: readonly unknown[],
  options: ReadOnlyQueryOptions,
): Promise<QueryResult> {
  return runnerFor(target).run(sql, params, options);
}

/** Closes every cached pool and query process (call on shutdown and between tests). */
export async function closeQueryConnections(): Promise<void> {
  const open = [...runners.values()];
  runners.clear();
  await Promise.all(open.map(async (runner) => runner.close()));
}
