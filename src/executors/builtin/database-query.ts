import { ToolExecutionError } from '../../shared/tool-errors';
import { defineBuiltin } from './builtin-tool';
import { runReadOnlyQuery } from './sql/query-connections';
import { parseQueryTarget } from './sql/query-target';
import { assertSelectOnly } from './sql/sql-guard';

export interface DatabaseQueryParams {
  sql: string;
  params?: (string | number | boolean | null)[];
}

const MAX_SQL_LENGTH = 10_000;

export const databaseQuery = defineBuiltin<DatabaseQueryParams>({
  name: 'database_query',
  description:
    'Runs one read-only SQL statement (SELECT or WITH … SELECT) on the configured ' +
    'database and returns the rows as JSON. Put values in "params" with ? placeholders instead of writing them into ' +
    'the SQL. Results are capped at a row limit; "truncated": true means more rows exist, so narrow the query ' +
    '(WHERE, LIMIT, aggregates). Writes, multiple statements, variables and functions outside a common set ' +
    '(aggregate, window, string, math, date, JSON, CAST/CONVERT) are refused; slow queries stop at a time limit. ' +
    'List tables with information_schema.tables / information_schema.columns (MySQL) or sqlite_master (SQLite).',
  category: 'data',
  effect: 'read_only',
  parameters: {
    type: 'object',
    properties: {
      sql: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_SQL_LENGTH,
        description: 'A single SELECT with ? placeholders, e.g. "SELECT name, total FROM orders WHERE id = ?".',
      },
      params: {
        type: 'array',
        items: { type: ['string', 'number', 'boolean', 'null'] },
        maxItems: 100,
        description: 'Values for the ? placeholders, in order.',
      },
    },
    required: ['sql'],
    additionalProperties: false,
  },
  unavailableReason: (env) =>
    env.queryDatabase === null ? 'database_query is disabled: set QUERY_DATABASE_URL' : null,
  execute: async ({ sql, params = [] }, context, env) => {
    const config = env.queryDatabase;
    if (config === null) throw new ToolExecutionError('database_query is disabled: no query database is configured');
    const target = parseQueryTarget(config.url);
    const statement = sql.trim().replace(/;\s*$/, '');
    assertSelectOnly(statement, target.kind);
    const result = await runReadOnlyQuery(target, statement, params, {
      rowLimit: config.rowLimit,
      timeoutMs: config.timeoutMs,
      signal: context.signal,
    });
    const more = result.truncated ? ` (truncated at ${config.rowLimit} rows; narrow the query to see the rest)` : '';
    return {
      response: `${result.rows.length} row${result.rows.length === 1 ? '' : 's'}${more}:\n${JSON.stringify(result.rows)}`,
      data: { ...result, row_count: result.rows.length },
      metadata: { row_count: result.rows.length, truncated: result.truncated },
    };
  },
});
