import Database from 'better-sqlite3';
import type { Connection as CallbackConnection } from 'mysql2';
import { createPool, type FieldPacket, type Pool, type PoolConnection, type RowDataPacket } from 'mysql2/promise';
import { ToolExecutionError } from '../tool-definition';
import { ToolForbiddenError } from '../tool-definition';
import { defineBuiltin } from './builtin-tool';

export interface DatabaseQueryParams {
  sql: string;
  params?: (string | number | boolean | null)[];
}

export type SqlDialect = 'mysql' | 'sqlite';

export interface QueryResult {
  columns: string[];
  rows: Record<string, unknown>[];
  truncated: boolean;
}

export interface ReadOnlyQueryOptions {
  rowLimit: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

const MAX_SQL_LENGTH = 10_000;
const READ_STATEMENTS = new Set(['select', 'with', 'show', 'explain', 'describe', 'desc']);
const WRITE_WORDS = new Set(
  (
    'insert update delete replace merge upsert create drop alter truncate rename grant revoke lock unlock call exec ' +
    'execute set load handler outfile dumpfile into attach detach pragma vacuum reindex analyze optimize repair flush ' +
    'kill shutdown install uninstall prepare deallocate commit rollback savepoint release'
  ).split(' '),
);
/** Functions that read server files, sleep or take locks: harmful even inside a read-only transaction. */
const FORBIDDEN_FUNCTIONS = new Set(
  'load_file sleep benchmark get_lock release_lock release_all_locks load_extension readfile writefile sys_exec sys_eval'.split(
    ' ',
  ),
);
/** `insert(...)` and `replace(...)` are string functions in MySQL and SQLite. */
const WORDS_ALLOWED_AS_FUNCTIONS = new Set(['insert', 'replace']);

interface ScannedWord {
  word: string;
  followedByParen: boolean;
}

const refuse = (reason: string): never => {
  throw new ToolForbiddenError(
    `database_query only runs a single read statement (SELECT, WITH … SELECT, SHOW, EXPLAIN, DESCRIBE): ${reason}`,
  );
};

/**
 * Text-level guard, the first of two layers (the database connection is read-only too). Strings,
 * quoted identifiers and comments are skipped the way the dialect parses them; comment forms whose
 * meaning differs between MySQL and SQLite (`#`, `--x`, `/*!`, `/*+`) are refused outright.
 */
export function assertReadOnlySql(sql: string, dialect: SqlDialect): void {
  const words = scanWords(sql, dialect);
  const first = words[0]?.word;
  if (!first || !READ_STATEMENTS.has(first)) refuse(`it starts with ${first ? `"${first.toUpperCase()}"` : 'nothing'}`);
  if (first === 'with' && !words.some(({ word }) => word === 'select')) refuse('WITH must be followed by a SELECT');
  words.forEach(({ word, followedByParen }, index) => {
    if (FORBIDDEN_FUNCTIONS.has(word)) refuse(`the function ${word.toUpperCase()}() is not allowed`);
    if (!WRITE_WORDS.has(word)) return;
    if (followedByParen && WORDS_ALLOWED_AS_FUNCTIONS.has(word)) return;
    if (word === 'analyze' && words[index - 1]?.word === 'explain') return;
    refuse(`"${word.toUpperCase()}" is not allowed`);
  });
}

function scanWords(sql: string, dialect: SqlDialect): ScannedWord[] {
  const words: ScannedWord[] = [];
  let statementEnded = false;
  let index = 0;
  const skipQuoted = (quote: string): void => {
    for (index++; index < sql.length; index++) {
      if (sql[index] === '\\' && dialect === 'mysql' && quote !== '`') index++;
      else if (sql[index] === quote) {
        if (sql[index + 1] === quote) index++;
        else return void index++;
      }
    }
    refuse('a quoted string or identifier is not closed');
  };
  while (index < sql.length) {
    const char = sql[index];
    const rest = sql.slice(index, index + 3);
    if (/\s/.test(char)) {
      index++;
      continue;
    }
    if (rest.startsWith('/*!') || rest.startsWith('/*+'))
      refuse('executable comments and optimizer hints are not allowed');
    if (rest.startsWith('/*')) {
      const end = sql.indexOf('*/', index + 2);
      if (end < 0) refuse('a /* comment is not closed');
      index = end + 2;
      continue;
    }
    if (rest.startsWith('--')) {
      if (!/^--[ \t\r\n]?$|^--[ \t\r\n]/.test(rest)) refuse('use "-- " (with a space) or /* */ for comments');
      const end = sql.indexOf('\n', index);
      index = end < 0 ? sql.length : end + 1;
      continue;
    }
    if (char === '#') refuse('"#" comments are not allowed; use /* */');
    if (statementEnded) refuse('multiple statements are not allowed');
    if (char === ';') {
      statementEnded = true;
      index++;
    } else if (char === "'" || char === '"' || char === '`') {
      skipQuoted(char);
    } else if (char === '[' && dialect === 'sqlite') {
      const end = sql.indexOf(']', index);
      if (end < 0) refuse('a [identifier] is not closed');
      index = end + 1;
    } else if (/[a-z_]/i.test(char)) {
      const word = /^[a-z_][a-z0-9_$]*/i.exec(sql.slice(index))?.[0] ?? char;
      index += word.length;
      const followedByParen = /^\s*\(/.test(sql.slice(index, index + 64));
      words.push({ word: word.toLowerCase(), followedByParen });
    } else {
      index++;
    }
  }
  return words;
}

export type QueryTarget = { kind: 'mysql'; url: string } | { kind: 'sqlite'; file: string };

export function parseQueryTarget(url: string): QueryTarget {
  if (/^(mysql|mariadb):\/\//i.test(url)) return { kind: 'mysql', url: url.replace(/^mariadb:/i, 'mysql:') };
  if (/^sqlite:/i.test(url)) {
    const file = url.replace(/^sqlite:/i, '').replace(/^\/\/(?=\/)/, '');
    if (file === '' || file === ':memory:') throw new ToolExecutionError('database_query needs a SQLite file path');
    return { kind: 'sqlite', file };
  }
  throw new ToolExecutionError('database_query supports mysql://, mariadb:// and sqlite: URLs only');
}

type MysqlFlavor = 'mysql' | 'mariadb';
type CachedConnection =
  { kind: 'mysql'; pool: Pool; flavor?: Promise<MysqlFlavor> } | { kind: 'sqlite'; database: Database.Database };

const connections = new Map<string, CachedConnection>();

function connectionFor(target: QueryTarget): CachedConnection {
  const key = target.kind === 'mysql' ? target.url : `sqlite:${target.file}`;
  let connection = connections.get(key);
  if (!connection) {
    connection =
      target.kind === 'mysql'
        ? {
            kind: 'mysql',
            pool: createPool({ uri: target.url, connectionLimit: 4, dateStrings: true, supportBigNumbers: true }),
          }
        : { kind: 'sqlite', database: openSqlite(target.file) };
    connections.set(key, connection);
  }
  return connection;
}

function openSqlite(file: string): Database.Database {
  try {
    return new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new ToolExecutionError(
      `cannot open the query database: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** Closes every cached pool and SQLite handle (call on shutdown and between tests). */
export async function closeQueryConnections(): Promise<void> {
  const open = [...connections.values()];
  connections.clear();
  await Promise.all(
    open.map(async (connection) => (connection.kind === 'mysql' ? connection.pool.end() : connection.database.close())),
  );
}

const toJsonValue = (value: unknown): unknown => {
  if (Buffer.isBuffer(value)) return `<${value.length} bytes>`;
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Date) return value.toISOString();
  return value;
};

const toJsonRow = (row: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(row).map(([key, value]) => [key, toJsonValue(value)]));

/**
 * Runs an already text-checked statement with the database enforcing read-only access:
 * SQLite opens the file read-only and accepts only statements that return rows; MySQL/MariaDB run
 * it in a read-only session inside `START TRANSACTION READ ONLY` with a server-side statement
 * timeout, then roll back.
 */
export async function runReadOnlyQuery(
  target: QueryTarget,
  sql: string,
  params: readonly unknown[],
  options: ReadOnlyQueryOptions,
): Promise<QueryResult> {
  const connection = connectionFor(target);
  return connection.kind === 'sqlite'
    ? runSqlite(connection.database, sql, params, options)
    : runMysql(connection, sql, params, options);
}

function runSqlite(
  database: Database.Database,
  sql: string,
  params: readonly unknown[],
  options: ReadOnlyQueryOptions,
): QueryResult {
  let statement: Database.Statement;
  try {
    statement = database.prepare(sql);
  } catch (error) {
    throw new ToolExecutionError(`SQL error: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!statement.reader) throw new ToolForbiddenError('the statement does not read data; database_query is read-only');
  const values = params.map((value) => (typeof value === 'boolean' ? Number(value) : value));
  const deadline = Date.now() + options.timeoutMs;
  const rows: Record<string, unknown>[] = [];
  let truncated = false;
  try {
    // better-sqlite3 is synchronous: the deadline and signal are checked between rows only.
    for (const row of statement.iterate(...values) as Iterable<Record<string, unknown>>) {
      if (rows.length >= options.rowLimit) {
        truncated = true;
        break;
      }
      if (options.signal?.aborted || Date.now() > deadline)
        throw new ToolExecutionError('query stopped: time limit reached');
      rows.push(toJsonRow(row));
    }
  } catch (error) {
    if (error instanceof ToolExecutionError) throw error;
    throw new ToolExecutionError(`SQL error: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { columns: statement.columns().map((column) => column.name), rows, truncated };
}

async function runMysql(
  connection: Extract<CachedConnection, { kind: 'mysql' }>,
  sql: string,
  params: readonly unknown[],
  options: ReadOnlyQueryOptions,
): Promise<QueryResult> {
  connection.flavor ??= detectFlavor(connection.pool);
  const flavor = await connection.flavor.catch((error: unknown) => {
    connection.flavor = undefined;
    throw new ToolExecutionError(
      `cannot reach the query database: ${error instanceof Error ? error.message : String(error)}`,
    );
  });
  const session = await connection.pool.getConnection();
  const onAbort = (): void => session.connection.destroy();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let destroyed = false;
  try {
    await session.query(
      flavor === 'mariadb'
        ? `SET SESSION max_statement_time = ${Math.max(0.001, options.timeoutMs / 1000)}`
        : `SET SESSION max_execution_time = ${Math.max(1, Math.round(options.timeoutMs))}`,
    );
    // DDL commits the open transaction implicitly and would run outside it; a read-only session
    // characteristic makes that implicit transaction read-only as well.
    await session.query('SET SESSION TRANSACTION READ ONLY');
    await session.query('START TRANSACTION READ ONLY');
    try {
      return await streamRows(session, sql, params, options);
    } finally {
      await session.query('ROLLBACK');
    }
  } catch (error) {
    destroyed = true;
    session.destroy();
    if (error instanceof ToolExecutionError) throw error;
    throw new ToolExecutionError(`SQL error: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    if (!destroyed) session.release();
  }
}

async function detectFlavor(pool: Pool): Promise<MysqlFlavor> {
  const [rows] = await pool.query<RowDataPacket[]>('SELECT VERSION() AS version');
  return String(rows[0]?.version ?? '')
    .toLowerCase()
    .includes('mariadb')
    ? 'mariadb'
    : 'mysql';
}

/** Streams so a huge result costs at most `rowLimit` rows of memory; the rest is read and dropped. */
function streamRows(
  session: PoolConnection,
  sql: string,
  params: readonly unknown[],
  options: ReadOnlyQueryOptions,
): Promise<QueryResult> {
  return new Promise((resolve, reject) => {
    const rows: Record<string, unknown>[] = [];
    let columns: string[] = [];
    let truncated = false;
    // The promise wrapper's typings describe `.connection` as itself; at runtime it is the callback connection.
    const core = session.connection as unknown as CallbackConnection;
    const query = core.query({ sql, values: [...params], timeout: options.timeoutMs + 1000 });
    query.on('fields', (fields: FieldPacket[]) => {
      columns = fields.map((field) => field.name);
    });
    query.on('result', (row: RowDataPacket) => {
      if (rows.length < options.rowLimit) rows.push(toJsonRow(row));
      else truncated = true;
    });
    query.on('error', (error: Error) =>
      reject(
        /read only transaction|READ ONLY/i.test(error.message)
          ? new ToolForbiddenError(`the database refused a write: ${error.message}`)
          : error,
      ),
    );
    query.on('end', () => resolve({ columns, rows, truncated }));
  });
}

export const databaseQuery = defineBuiltin<DatabaseQueryParams>({
  name: 'database_query',
  description:
    'Runs one read-only SQL statement (SELECT, WITH … SELECT, SHOW, EXPLAIN or DESCRIBE) on the configured ' +
    'database and returns the rows as JSON. Put values in "params" with ? placeholders instead of writing them into ' +
    'the SQL. Results are capped at a row limit; "truncated": true means more rows exist, so narrow the query ' +
    '(WHERE, LIMIT, aggregates). Writes and multiple statements are refused.',
  category: 'data',
  effect: 'read_only',
  parameters: {
    type: 'object',
    properties: {
      sql: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_SQL_LENGTH,
        description: 'A single read statement with ? placeholders, e.g. "SELECT name, total FROM orders WHERE id = ?".',
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
    assertReadOnlySql(sql, target.kind);
    const result = await runReadOnlyQuery(target, sql.trim().replace(/;\s*$/, ''), params, {
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
