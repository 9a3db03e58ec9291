import request from 'supertest';
import { toolBody } from '../factories/tool.factory';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

describe('Tool versions (e2e)', () => {
  let sut: TestApp;
  let key: string;
  let other: string;

  beforeAll(async () => {
    sut = await startTestApp();
    key = await sut.createUserKey('alice');
    other = await sut.createUserKey('bob');
  });

  afterAll(async () => {
    await sut.close();
  });

  const code = (text: string) => ({ language: 'javascript', code: `return { answer: ${JSON.stringify(text)} };` });
  const execute = async (name: string) =>
    (
      (
        await request(sut.http)
          .post(`/api/v1/tools/${name}/execute`)
          .set(bearer(key))
          .send({ arguments: { a: 1, b: 2 } })
          .expect(200)
      ).body as { data: { answer: string } }
    ).data.answer;

  it('should keep each version, show old ones as saved and roll back to one as the next version', async () => {
    await request(sut.http)
      .post('/api/v1/tools')
      .set(bearer(key))
      .send(toolBody({ name: 'versioned', implementation_config: code('first') }))
      .expect(201);
    await request(sut.http)
      .patch('/api/v1/tools/versioned')
      .set(bearer(key))
      .send({ implementation_config: code('second') })
      .expect(200);
    expect(await execute('versioned')).toBe('second');

    const listed = await request(sut.http).get('/api/v1/tools/versioned/versions').set(bearer(key)).expect(200);
    expect((listed.body as Array<{ version: number }>).map((entry) => entry.version)).toEqual([2, 1]);
    const first = await request(sut.http).get('/api/v1/tools/versioned/versions/1').set(bearer(key)).expect(200);
    expect(first.body).toMatchObject({ version: 1, implementation_config: code('first') });

    const rolledBack = await request(sut.http)
      .post('/api/v1/tools/versioned/rollback')
      .set(bearer(key))
      .send({ version: 1 })
      .expect(200);

    expect(rolledBack.body).toMatchObject({ version: 3, implementation_config: code('first') });
    expect(await execute('versioned')).toBe('first');
  });

  it('should answer 404 for a missing version and for the versions of a tool the caller cannot see', async () => {
    await request(sut.http)
      .post('/api/v1/tools')
      .set(bearer(key))
      .send(toolBody({ name: 'mine_only' }))
      .expect(201);

    await request(sut.http).get('/api/v1/tools/mine_only/versions/7').set(bearer(key)).expect(404);
    await request(sut.http).get('/api/v1/tools/mine_only/versions').set(bearer(other)).expect(404);
    await request(sut.http)
      .post('/api/v1/tools/mine_only/rollback')
      .set(bearer(other))
      .send({ version: 1 })
      .expect(404);
    await request(sut.http).post('/api/v1/tools/mine_only/rollback').set(bearer(key)).send({ version: 0 }).expect(400);
  });
});
