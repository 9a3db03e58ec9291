import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { createConnection, escapeId, type RowDataPacket } from 'mysql2/promise';
import type { DatabaseConfig } from '../../../config/app-config';
import { errorMessage } from '../../../shared/error-text';
import { parseQueryTarget } from './query-target';

/** Tables of the service a query user must never read: credentials and tool configurations. */
const SERVICE_TABLES = ['api_keys', 'tools'];
const READ_PRIVILEGES = new Set(['SELECT', 'SHOW VIEW', 'USAGE']);

const realFile = (file: string): string => {
  try {
    return realpathSync(file);
  } catch {
    return resolve(file);
  }
};

/**
 * Why the `QUERY_DATABASE_URL` connection puts the service itself at risk: it is the service's own
 * database, can read the service's tables, or holds privileges beyond SELECT. Empty when none applies.
 */
export async function findQueryExposure(queryUrl: string, service: DatabaseConfig): Promise<string[]> {
  const target = parseQueryTarget(queryUrl);
  if (target.kind === 'sqlite') {
    const same = service.type === 'sqlite' && realFile(target.file) === realFile(service.database);
    return same
      ? ["QUERY_DATABASE_URL is the service's own database: database_query can read its API keys and tools"]
      : [];
  }
  const connection = await createConnection({ uri: target.url, connectTimeout: 5000 });
  try {
    const warnings: string[] = [];
    if (service.type === 'mysql') {
      const readable: string[] = [];
      for (const table of SERVICE_TABLES) {
        const probe = `SELECT 1 FROM ${escapeId(service.database)}.${escapeId(table)} LIMIT 0`;
        if (
          await connection.query(probe).then(
            () => true,
            () => false,
          )
        )
          readable.push(table);
      }
      if (readable.length > 0) {
        warnings.push(
          `the QUERY_DATABASE_URL user can read the service's own tables (${readable.join(', ')} in ` +
            `${service.database}): database_query would expose API keys and tool configurations`,
        );
      }
    }
    const [grants] = await connection.query<RowDataPacket[]>('SHOW GRANTS');
    const beyondSelect = grants.flatMap((row) => privilegesBeyondSelect(String(Object.values(row)[0])));
    if (beyondSelect.length > 0) {
      warnings.push(
        `the QUERY_DATABASE_URL user holds privileges beyond SELECT (${[...new Set(beyondSelect)].join(', ')})`,
      );
    }
    return warnings;
  } finally {
    await connection.end();
  }
}

function privilegesBeyondSelect(grant: string): string[] {
  const privileges = /^GRANT (.+?) ON /i.exec(grant)?.[1];
  if (!privileges) return [];
  return privileges
    .split(',')
    .map((privilege) =>
      privilege
        .trim()
        .replace(/\s*\(.*\)$/, '')
        .toUpperCase(),
    )
    .filter((privilege) => !READ_PRIVILEGES.has(privilege));
}

/** Logs each exposure as a warning; a query database that cannot be reached is reported, never fatal. */
export async function warnAboutQueryExposure(
  queryUrl: string,
  service: DatabaseConfig,
  logger: { warn(message: string): void },
): Promise<void> {
  try {
    const warnings = await findQueryExposure(queryUrl, service);
    for (const warning of warnings) {
      logger.warn(
        `database_query: ${warning}. Give QUERY_DATABASE_URL a user with SELECT only on the intended schema.`,
      );
    }
  } catch (error) {
    logger.warn(`database_query: could not check the QUERY_DATABASE_URL user's access: ${errorMessage(error)}`);
  }
}
