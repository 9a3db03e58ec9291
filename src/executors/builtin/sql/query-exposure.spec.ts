import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createConnection, type Connection } from 'mysql2/promise';
import { throwawayMysqlDatabase } from '../../../../test/support/throwaway-mysql';
import { findQueryExposure, warnAboutQueryExposure } from './query-exposure';

describe(findQueryExposure.name, () => {
  describe('with SQLite', () => {
    let folder: string;
    let serviceFile: string;

    beforeAll(() => {
      folder = mkdtempSync(join(tmpdir(), 'query-exposure-'));
      serviceFile = join(folder, 'service.sqlite');
      writeFileSync(serviceFile, '');
    });

    afterAll(() => rmSync(folder, { recursive: true, force: true }));

    it("should warn when the query database is the service's own file, however it is spelled", async () => {
      const service = { type: 'sqlite', database: serviceFile, url: `sqlite:${serviceFile}` } as const;

      await expect(findQueryExposure(`sqlite:${relative(process.cwd(), serviceFile)}`, service)).resolves.toEqual([
        "QUERY_DATABASE_URL is the service's own database: database_query can read its API keys and tools",
      ]);
    });

    it('should not warn for another file', async () => {
      const service = { type: 'sqlite', database: serviceFile, url: `sqlite:${serviceFile}` } as const;

      await expect(findQueryExposure(`sqlite:${join(folder, 'shop.db')}`, service)).resolves.toEqual([]);
    });
  });

  const mysqlUrl = process.env.TEST_MYSQL_URL;

  (mysqlUrl ? describe : describe.skip)('with MySQL or MariaDB (TEST_MYSQL_URL)', () => {
    let serviceDatabase: { url: string; drop: () => Promise<void> };
    let admin: Connection;
    let service: { type: 'mysql'; url: string; database: string };
    const user = `tf_reader_${randomBytes(4).toString('hex')}`;

    beforeAll(async () => {
      serviceDatabase = await throwawayMysqlDatabase(mysqlUrl ?? '', 'tf_query');
      admin = await createConnection(serviceDatabase.url);
      await admin.query('CREATE TABLE tools (id INT)');
      await admin.query('CREATE TABLE api_keys (id INT)');
      await admin.query(`CREATE USER '${user}'@'%' IDENTIFIED BY 'reader'`);
      service = { type: 'mysql', url: serviceDatabase.url, database: new URL(serviceDatabase.url).pathname.slice(1) };
    });

    afterAll(async () => {
      await admin.query(`DROP USER IF EXISTS '${user}'@'%'`);
      await admin.end();
      await serviceDatabase.drop();
    });

    it("should warn when the query user can read the service's tables or holds more than SELECT", async () => {
      const warnings = await findQueryExposure(mysqlUrl ?? '', service);

      expect(warnings).toEqual([
        expect.stringContaining(`can read the service's own tables (api_keys, tools in ${service.database})`),
        expect.stringMatching(/holds privileges beyond SELECT \(ALL PRIVILEGES\)/),
      ]);
    });

    it('should not warn for a user that cannot read them and holds nothing else', async () => {
      const url = new URL(mysqlUrl ?? '');
      url.username = user;
      url.password = 'reader';
      url.pathname = '';

      await expect(findQueryExposure(url.toString(), service)).resolves.toEqual([]);
    });
  });
});

describe(warnAboutQueryExposure.name, () => {
  it('should log a warning instead of failing when the check cannot run', async () => {
    const warnings: string[] = [];
    const service = { type: 'sqlite', database: '/tmp/none.sqlite', url: 'sqlite:/tmp/none.sqlite' } as const;

    await warnAboutQueryExposure('mysql://nobody:x@127.0.0.1:1/none', service, { warn: (text) => warnings.push(text) });

    expect(warnings).toEqual([expect.stringContaining("could not check the QUERY_DATABASE_URL user's access")]);
  });

  it('should tell the operator what to do', async () => {
    const warnings: string[] = [];
    const service = { type: 'sqlite', database: '/tmp/service.sqlite', url: 'sqlite:/tmp/service.sqlite' } as const;

    await warnAboutQueryExposure('sqlite:/tmp/service.sqlite', service, { warn: (text) => warnings.push(text) });

    expect(warnings).toEqual([
      expect.stringContaining('Give QUERY_DATABASE_URL a user with SELECT only on the intended schema.'),
    ]);
  });
});
