import { ToolExecutionError } from '../../../shared/tool-errors';

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
