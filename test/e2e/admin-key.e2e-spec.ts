import request from 'supertest';
import { ADMIN_KEY, bearer, startTestApp, type TestApp } from '../support/test-app';

describe('Admin key recovery and rotation (e2e)', () => {
  let first: TestApp | undefined;
  let second: TestApp | undefined;

  afterEach(async () => {
    await second?.close();
    await first?.close();
    first = second = undefined;
  });

  const createAdminKey = async (app: TestApp, key: string): Promise<{ id: string; key: string }> => {
    const response = await request(app.http)
      .post('/api/v1/api-keys')
      .set(bearer(key))
      .send({ name: 'second admin', role: 'admin' })
      .expect(201);
    return response.body as { id: string; key: string };
  };

  const idOfKey = async (app: TestApp, caller: string, key: string): Promise<string> => {
    const response = await request(app.http).get('/api/v1/api-keys').set(bearer(caller)).expect(200);
    type Listed = Array<{ id: string; key_prefix: string }>;
    const body = response.body as Listed | { items: Listed };
    const keys = Array.isArray(body) ? body : body.items;
    const match = keys.find((entry) => entry.key_prefix === key.slice(0, 10));
    if (!match) throw new Error(`no key with prefix ${key.slice(0, 10)}`);
    return match.id;
  };

  it('should reactivate a revoked ADMIN_API_KEY at the next start', async () => {
    first = await startTestApp();
    const other = await createAdminKey(first, ADMIN_KEY);
    const bootstrapId = await idOfKey(first, other.key, ADMIN_KEY);
    await request(first.http).delete(`/api/v1/api-keys/${bootstrapId}`).set(bearer(other.key)).expect(204);
    await request(first.http).get('/api/v1/api-keys').set(bearer(ADMIN_KEY)).expect(401);
    await first.app.close();

    second = await startTestApp({}, { databaseUrl: first.databaseUrl });

    await request(second.http).get('/api/v1/api-keys').set(bearer(ADMIN_KEY)).expect(200);
  });

  it('should register a new ADMIN_API_KEY next to the old one, which can then be revoked', async () => {
    first = await startTestApp();
    await first.app.close();
    const rotated = 'tf_rotated_admin_key_0123456789abcdef';

    second = await startTestApp({ ADMIN_API_KEY: rotated }, { databaseUrl: first.databaseUrl });

    const oldId = await idOfKey(second, rotated, ADMIN_KEY);
    await request(second.http).delete(`/api/v1/api-keys/${oldId}`).set(bearer(rotated)).expect(204);
    await request(second.http).get('/api/v1/api-keys').set(bearer(ADMIN_KEY)).expect(401);
    await request(second.http).get('/api/v1/api-keys').set(bearer(rotated)).expect(200);
  });
});
