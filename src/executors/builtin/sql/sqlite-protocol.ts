import type { QueryResult } from './query-result';

/** Messages between SqliteRunner and its query process (JSON over the IPC channel). */
export interface SqliteQueryRequest {
  sql: string;
  params: unknown[];
  rowLimit: number;
}

export type SqliteReply =
  { type: 'result'; result: QueryResult } | { type: 'failed'; forbidden: boolean; message: string };

export type SqliteProcessMessage = { type: 'ready' } | { type: 'open-failed'; message: string } | SqliteReply;

export const isSqliteProcessMessage = (value: unknown): value is SqliteProcessMessage => {
  if (typeof value !== 'object' || value === null || !('type' in value)) return false;
  if (value.type === 'ready') return true;
  if (value.type === 'result') return 'result' in value && typeof value.result === 'object';
  return (value.type === 'failed' || value.type === 'open-failed') && 'message' in value;
};
