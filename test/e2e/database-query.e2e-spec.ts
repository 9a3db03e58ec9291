import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { QUERY_CORPUS_SCHEMA } from '../factories/query-corpus';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

const UNBOUNDED = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT COUNT(*) FROM c';

describe('database_query builtin (e2e)', () => {
  let sut: TestApp;
  let folder: string;
  let userKey: string;

  const execute = (sql: string, params?: unknown[]) =>
    request(sut.http)
      .post('/api/v1/tools/database_query/execute')
      .set(bearer(userKey))
      .send({ arguments: { sql, ...(params ? { params } : {}) } })
      .expect(200);

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'toolflow-query-'));
    const file = join(folder, 'shop.db');
    const database = new Database(file);
    for (const statement of QUERY_CORPUS_SCHEMA) database.exec(statement);
    database.close();
    sut = await startTestApp({ QUERY_DATABASE_URL: `sqlite:${file}`, QUERY_TIMEOUT_MS: '300' });
    userKey = await sut.createUserKey('quinn');
  });

  afterAll(async () => {
    await sut.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('should answer rows for a SELECT', async () => {
    const response = await execute('SELECT name FROM customers WHERE city = ? ORDER BY name', ['Paris']);

    expect(response.body).toMatchObject({ success: true, data: { rows: [{ name: 'Ada' }, { name: 'Cy' }] } });
  });

  it('should stop an unbounded recursive query at QUERY_TIMEOUT_MS as a timeout and keep serving', async () => {
    const [response, health] = await Promise.all([execute(UNBOUNDED), request(sut.http).get('/health').expect(200)]);

    expect(response.body).toMatchObject({ success: false, error_kind: 'timeout' });
    expect(response.body.error).toContain('300 ms time limit');
    expect(health.body.status).toBe('ok');
  });

  it.each(['SELECT `sleep`(2)', 'SELECT 1 /*M!, SLEEP(2) */', "SELECT CAST(`load_file`('/etc/passwd') AS CHAR)"])(
    'should refuse %j as forbidden',
    async (sql) => {
      const response = await execute(sql);

      expect(response.body).toMatchObject({ success: false, error_kind: 'forbidden' });
    },
  );
});
