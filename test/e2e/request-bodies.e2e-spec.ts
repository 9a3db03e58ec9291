import request from 'supertest';
import { toolBody } from '../factories/tool.factory';
import { ADMIN_KEY, bearer, startTestApp, type TestApp } from '../support/test-app';

interface Problem {
  status: number;
  detail: string;
  errors?: Array<{ field: string; message: string }>;
}

interface ToolBody {
  function_schema: { function: { parameters: { properties: Record<string, unknown>; required?: string[] } } };
  implementation_config: Record<string, unknown>;
}

const admin = bearer(ADMIN_KEY);

/** `{"a":{"a":…{"a":1}…}}` nested `levels` deep, as raw JSON text (building it as an object would overflow JSON.stringify). */
const nestedJson = (levels: number): string => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('Request bodies (e2e)', () => {
  let sut: TestApp;

  beforeAll(async () => {
    sut = await startTestApp();
  });

  afterAll(async () => {
    await sut.close();
  });

  const send = (method: 'post' | 'put', path: string, raw: string) =>
    request(sut.http)[method](`/api/v1${path}`).set(admin).set('content-type', 'application/json').send(raw);

  describe('nesting depth', () => {
    it.each([
      ['post', '/api-keys', (deep: string) => `{"name":"k","role":"user","extra":${deep}}`],
      ['post', '/tools', (deep: string) => `{"name":"deep","implementation_config":${deep}}`],
      ['put', '/tools/calculator', (deep: string) => `{"name":"deep","function_schema":${deep}}`],
      ['post', '/workflow-runs', (deep: string) => `{"definition":{"nodes":[]},"inputs":${deep}}`],
      ['post', '/workflows', (deep: string) => `{"name":"deep","definition":${deep}}`],
    ] as const)(
      'should refuse a body nested 5,000 levels deep on %s %s with 400 naming the limit',
      async (method, path, body) => {
        const response = await send(method, path, body(nestedJson(5000))).expect(400);

        expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect((response.body as Problem).detail).toContain('128');
        expect((response.body as Problem).errors).toEqual([
          { field: 'body', message: expect.stringContaining('nested deeper than 128 levels') as unknown },
        ]);
      },
    );

    it('should refuse 129 levels and let 128 through to validation', async () => {
      // The body object is the first level, so `x` holds the other 127 or 128.
      const create = (levels: number) =>
        send('post', '/tools', JSON.stringify({ ...toolBody(), x: '' }).replace('"x":""', `"x":${nestedJson(levels)}`));

      const refused = await create(128).expect(400);
      expect((refused.body as Problem).detail).toContain('128');
      const parsed = await create(127).expect(400);
      expect((parsed.body as Problem).errors).toEqual([{ field: 'x', message: 'property x should not exist' }]);
    });

    it('should not count brackets inside strings as nesting', async () => {
      const body = toolBody({ description: `${'['.repeat(300)}{${'{'.repeat(300)}` });

      await request(sut.http).post('/api/v1/tools').set(admin).send(body).expect(201);
    });
  });

  describe('parameters named like Object internals', () => {
    it.each(['constructor', 'prototype', 'toString', 'hasOwnProperty'])(
      'should keep a parameter named %s through create and read',
      async (name) => {
        const body = toolBody();
        const raw = JSON.stringify(body).replace(
          '"properties":{"a":{"type":"number"},',
          `"properties":{"${name}":{"type":"string","description":"kept"},"a":{"type":"number"},`,
        );

        const created = await send('post', '/tools', raw).expect(201);
        const stored = await request(sut.http)
          .get(`/api/v1/tools/${(created.body as { id: string }).id}`)
          .set(admin)
          .expect(200);

        const properties = (stored.body as ToolBody).function_schema.function.parameters.properties;
        expect(Object.keys(properties)).toEqual([name, 'a', 'b']);
        expect(Object.getOwnPropertyDescriptor(properties, name)?.value).toEqual({
          type: 'string',
          description: 'kept',
        });
      },
    );

    it('should hand arguments named constructor and prototype to the tool', async () => {
      const body = toolBody({
        implementation_config: { language: 'javascript', code: 'return Object.keys(args);' },
      });
      const raw = JSON.stringify(body).replace(
        '"properties":{"a":{"type":"number"},',
        '"properties":{"constructor":{"type":"string"},"prototype":{"type":"string"},"a":{"type":"number"},',
      );
      const created = await send('post', '/tools', raw).expect(201);

      const response = await send(
        'post',
        `/tools/${(created.body as { id: string }).id}/execute`,
        '{"arguments":{"constructor":"c","prototype":"p","a":1,"b":2}}',
      );
      expect(response.status).toBe(200);

      expect((response.body as { data: unknown }).data).toEqual(['constructor', 'prototype', 'a', 'b']);
    });

    it('should refuse a parameter named __proto__ at save, naming it, since validators skip that name', async () => {
      const raw = JSON.stringify(toolBody()).replace(
        '"properties":{"a":{"type":"number"},',
        '"properties":{"__proto__":{"type":"string"},"a":{"type":"number"},',
      );

      const response = await send('post', '/tools', raw).expect(400);

      expect((response.body as Problem).errors).toEqual([
        {
          field: 'function_schema.function.parameters.properties.__proto__',
          message: expect.stringContaining('may not be named "__proto__"') as unknown,
        },
      ]);
    });

    it('should refuse a constructor key on the body itself instead of dropping it', async () => {
      const raw = JSON.stringify(toolBody()).replace('{', '{"constructor":{"name":"x"},');

      const response = await send('post', '/tools', raw).expect(400);

      expect((response.body as Problem).errors).toEqual([
        { field: 'constructor', message: 'property constructor should not exist' },
      ]);
    });

    it('should keep a constructor key inside implementation_config, where the schema refuses it', async () => {
      const body = toolBody({ implementation_type: 'code' });
      const raw = JSON.stringify(body).replace(
        '"implementation_config":{',
        '"implementation_config":{"constructor":1,',
      );

      const response = await send('post', '/tools', raw).expect(400);

      expect((response.body as Problem).errors?.map((error) => error.message).join(' ')).toContain('constructor');
    });
  });
});
