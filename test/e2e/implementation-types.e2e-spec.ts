import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

interface Builtin {
  name: string;
  parameters: { type: string };
  available: boolean;
  reason?: string;
}

interface ImplementationType {
  type: string;
  description: string;
  config_schema: { type: string; properties: Record<string, unknown> };
  builtins?: Builtin[];
}

const typesOf = async (sut: TestApp): Promise<ImplementationType[]> => {
  const key = await sut.createUserKey();
  const response = await request(sut.http).get('/api/v1/tools/implementation-types').set(bearer(key)).expect(200);
  return response.body as ImplementationType[];
};

const builtin = (types: ImplementationType[], name: string): Builtin | undefined =>
  types.find((entry) => entry.type === 'builtin')?.builtins?.find((entry) => entry.name === name);

describe('GET /tools/implementation-types (e2e)', () => {
  describe('without optional configuration', () => {
    let sut: TestApp;

    beforeAll(async () => {
      sut = await startTestApp();
    });

    afterAll(async () => {
      await sut.close();
    });

    it('should describe every implementation type with the config schema the service validates', async () => {
      const types = await typesOf(sut);

      expect(types.map((entry) => entry.type).sort()).toEqual(['builtin', 'code', 'http', 'mcp', 'workflow']);
      for (const entry of types) {
        expect(entry.description.length).toBeGreaterThan(0);
        expect(entry.config_schema.type).toBe('object');
      }
      expect(types.find((entry) => entry.type === 'http')?.config_schema.properties).toHaveProperty('url');
    });

    it('should list each builtin with its parameters and say which ones configuration disables', async () => {
      const types = await typesOf(sut);

      expect(builtin(types, 'calculator')).toMatchObject({ available: true, parameters: { type: 'object' } });
      expect(builtin(types, 'calculator')).not.toHaveProperty('reason');
      expect(builtin(types, 'file_read')).toMatchObject({
        available: false,
        reason: expect.stringMatching(/FILE_READ_ROOT/),
      });
      expect(builtin(types, 'database_query')).toMatchObject({
        available: false,
        reason: expect.stringMatching(/QUERY_DATABASE_URL/),
      });
    });

    it('should not be taken for a tool named "implementation-types"', async () => {
      const key = await sut.createUserKey();
      const response = await request(sut.http).get('/api/v1/tools/implementation-types').set(bearer(key));

      expect(response.status).toBe(200);
      expect(Array.isArray(response.body)).toBe(true);
    });

    it('should require an API key', async () => {
      await request(sut.http).get('/api/v1/tools/implementation-types').expect(401);
    });
  });

  describe('with FILE_READ_ROOT set', () => {
    let sut: TestApp;

    beforeAll(async () => {
      sut = await startTestApp({ FILE_READ_ROOT: mkdtempSync(join(tmpdir(), 'toolflow-files-')) });
    });

    afterAll(async () => {
      await sut.close();
    });

    it('should report file_read as available', async () => {
      const types = await typesOf(sut);

      expect(builtin(types, 'file_read')).toMatchObject({ available: true });
      expect(builtin(types, 'file_read')).not.toHaveProperty('reason');
    });
  });
});
