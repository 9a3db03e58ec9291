import type { DataSource, QueryRunner } from 'typeorm';

/** Every SQL statement a DataSource sends from now on, transaction control included. */
export interface StatementCounter {
  readonly statements: string[];
  /** Forgets what was counted so far. */
  reset(): void;
  /** Statements whose text starts with `verb` (case-insensitive), e.g. INSERT, UPDATE, SELECT. */
  count(verb?: string): number;
  stop(): void;
}

/**
 * Counts the statements of `dataSource` by wrapping `query` of every query runner its driver hands out
 * (repositories, query builders and transactions all go through one). For tests and benchmarks only.
 */
export function countStatements(dataSource: DataSource): StatementCounter {
  const statements: string[] = [];
  const wrapped = new WeakSet<QueryRunner>();
  const driver = dataSource.driver;
  const original = driver.createQueryRunner.bind(driver);
  let counting = true;
  driver.createQueryRunner = (mode) => {
    const runner = original(mode);
    if (!wrapped.has(runner)) {
      wrapped.add(runner);
      const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
      runner.query = ((sql: string, ...rest: unknown[]) => {
        if (counting) statements.push(sql.trim());
        return query(sql, ...rest);
      }) as QueryRunner['query'];
    }
    return runner;
  };
  return {
    statements,
    reset: () => {
      statements.length = 0;
    },
    count: (verb) =>
      verb === undefined
        ? statements.length
        : statements.filter((sql) => sql.toUpperCase().startsWith(verb.toUpperCase())).length,
    stop: () => {
      counting = false;
      driver.createQueryRunner = original;
    },
  };
}
