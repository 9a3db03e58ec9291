import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import type { DataSourceOptions } from 'typeorm';

/** A new, empty schema on the server of `baseUrl` (mysql:// or mariadb://); `drop` removes it. */
export async function throwawayMysqlDatabase(
  baseUrl: string,
  prefix = 'tf_e2e',
): Promise<{ url: string; drop: () => Promise<void> }> {
  const url = new URL(baseUrl.replace(/^mariadb:/, 'mysql:'));
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  url.pathname = '';
  const admin = await createConnection(url.toString());
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.end();
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const connection = await createConnection(baseUrl);
      await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await connection.end();
    },
  };
}

/** A fresh database of one kind: its DataSource options and how to drop it. */
export type FreshDatabase = () => Promise<{ options: DataSourceOptions; drop: () => Promise<void> }>;

/**
 * A fresh database of each kind at hand, for `describe.each`: SQLite in memory always, MySQL with TEST_MYSQL_URL
 * (a throwaway schema named with `prefix`, UTC like the app's own connection).
 */
export function databasesAtHand(prefix: string): Array<[string, FreshDatabase]> {
  const databases: Array<[string, FreshDatabase]> = [
    [
      'SQLite',
      () =>
        Promise.resolve({ options: { type: 'better-sqlite3', database: ':memory:' }, drop: () => Promise.resolve() }),
    ],
  ];
  const mysqlUrl = process.env.TEST_MYSQL_URL;
  if (mysqlUrl)
    databases.push([
      'MySQL (TEST_MYSQL_URL)',
      async () => {
        const database = await throwawayMysqlDatabase(mysqlUrl, prefix);
        return { options: { type: 'mysql', url: database.url, timezone: 'Z' }, drop: database.drop };
      },
    ]);
  return databases;
}
