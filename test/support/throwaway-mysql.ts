import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';

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
