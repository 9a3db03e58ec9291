import type { AST } from 'node-sql-parser';
import { Parser as MariadbParser } from 'node-sql-parser/build/mariadb';
import { Parser as SqliteParser } from 'node-sql-parser/build/sqlite';
import { ToolForbiddenError } from '../../../shared/tool-errors';
import { ALLOWED_FUNCTIONS, ALLOWED_KEYWORDS, ALLOWED_NODE_TYPES } from './sql-allow-list';
import { errorMessage } from '../../../shared/error-text';

export type SqlDialect = 'mysql' | 'sqlite';

const refuse = (reason: string): never => {
  throw new ToolForbiddenError(`database_query only runs a single SELECT (or WITH … SELECT) statement: ${reason}`);
};

/**
 * Text the parser and the database could read differently is refused before parsing: the parser
 * must see exactly the statement the server runs. Such values belong in `params`.
 */
const TEXT_RULES: readonly { pattern: RegExp; reason: string; dialects: readonly SqlDialect[] }[] = [
  {
    pattern: /\/\*\s*(?:M?!|\+)/i,
    reason: 'executable comments (/*! */, /*M! */) and optimizer hints (/*+ */) are not allowed',
    dialects: ['mysql', 'sqlite'],
  },
  {
    pattern: /\\/,
    reason: 'backslashes are not allowed in the SQL text; pass such values in "params"',
    dialects: ['mysql', 'sqlite'],
  },
  {
    pattern: /--(?![ \t\r\n]|$)/,
    reason: 'write "-- " (with a space) or /* */ for comments',
    dialects: ['mysql', 'sqlite'],
  },
  { pattern: /#/, reason: '"#" is not allowed in SQLite SQL text', dialects: ['sqlite'] },
  {
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
    pattern: /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/,
    reason: 'control characters are not allowed',
    dialects: ['mysql', 'sqlite'],
  },
];

// Per-dialect grammars (the full bundle holds every dialect); MariaDB's also reads MySQL 8 SELECTs.
// SQLite's grammar misses some SELECT syntax (OVER without PARTITION BY): the MariaDB grammar is tried
// next, which is safe because the text rules above leave both databases splitting tokens alike.
const mariadb = { parser: new MariadbParser(), database: 'mariadb' };
const grammars: Record<SqlDialect, readonly { parser: MariadbParser; database: string }[]> = {
  mysql: [mariadb],
  sqlite: [{ parser: new SqliteParser(), database: 'sqlite' }, mariadb],
};

/**
 * Refuses anything but one SELECT (or WITH … SELECT) built from allowed node types and functions,
 * without INTO, variables or locking clauses. The first of two layers: the connection itself is
 * read-only and time-limited too.
 */
export function assertSelectOnly(sql: string, dialect: SqlDialect): void {
  for (const rule of TEXT_RULES) if (rule.dialects.includes(dialect) && rule.pattern.test(sql)) refuse(rule.reason);
  const statements = parse(sql, dialect);
  if (statements.length === 0) refuse('it is empty');
  if (statements.length > 1) refuse('multiple statements are not allowed');
  const statement = statements[0] as { type?: unknown };
  if (statement.type !== 'select') refuse(`it is ${String(statement.type).toUpperCase()}, not SELECT`);
  checkNode(statement);
}

function parse(sql: string, dialect: SqlDialect): AST[] {
  let firstError: unknown;
  for (const { parser, database } of grammars[dialect]) {
    try {
      const parsed = parser.astify(sql, { database });
      return Array.isArray(parsed) ? parsed : [parsed];
    } catch (error) {
      firstError ??= error;
    }
  }
  const detail = errorMessage(firstError).slice(0, 200);
  return refuse(`it could not be parsed (${detail})`);
}

function checkNode(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(checkNode);
  if (typeof node !== 'object' || node === null) return;
  const fields = node as Record<string, unknown>;
  if (typeof fields.type === 'string') checkTyped(fields.type, fields);
  Object.values(fields).forEach(checkNode);
}

function checkTyped(type: string, node: Record<string, unknown>): void {
  if (type === 'var') refuse('variables are not allowed');
  if (!ALLOWED_NODE_TYPES.has(type.toLowerCase())) refuse(`"${type}" is not allowed`);
  if (type === 'function' || type === 'aggr_func') checkFunction(node.name);
  if (type === 'origin') checkKeyword(String(node.value));
  if (type !== 'select') return;
  const into = node.into as { keyword?: unknown; expr?: unknown } | null | undefined;
  if (into?.keyword || into?.expr) refuse('SELECT … INTO is not allowed');
  if (node.locking_read || node.for_update) refuse('locking clauses (FOR UPDATE, LOCK IN SHARE MODE) are not allowed');
}

/** Plain names only: a schema-qualified name could reach a stored function. */
function checkFunction(name: unknown): void {
  if (typeof name === 'string') return checkFunctionName(name);
  const { name: parts = [], schema } = (name ?? {}) as { name?: { value?: unknown }[]; schema?: unknown };
  if (schema || parts.length !== 1) refuse('qualified function names are not allowed');
  checkFunctionName(String(parts[0].value));
}

function checkFunctionName(name: string): void {
  const lower = name.toLowerCase();
  if (!ALLOWED_FUNCTIONS.has(lower)) refuse(`the function ${lower.toUpperCase()}() is not allowed`);
}

/** `origin` nodes are bare words; function names arrive this way too and were checked as calls. */
function checkKeyword(text: string): void {
  for (const word of text.toLowerCase().split(/\s+/)) {
    if (!ALLOWED_KEYWORDS.has(word) && !ALLOWED_FUNCTIONS.has(word)) refuse(`"${text}" is not allowed`);
  }
}
