import { ToolTimeoutError } from '../../../shared/tool-errors';

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

/** The one wording of "over the limit", whichever database stopped the query. */
export const queryTimeoutError = (timeoutMs: number): ToolTimeoutError =>
  new ToolTimeoutError(
    `the query was stopped at the ${timeoutMs} ms time limit (QUERY_TIMEOUT_MS); narrow it (WHERE, LIMIT, indexed columns)`,
  );

const toJsonValue = (value: unknown): unknown => {
  if (Buffer.isBuffer(value)) return `<${value.length} bytes>`;
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Date) return value.toISOString();
  return value;
};

export const toJsonRow = (row: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(row).map(([key, value]) => [key, toJsonValue(value)]));
