import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { parse as parseYaml } from 'yaml';
import { sendJson, startHttpTestServer, type HttpTestServer } from '../support/http-test-server';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

interface ImportedTool {
  id?: string;
  name: string;
  description: string;
  effect: string;
  function_schema: { function: { parameters: { properties: Record<string, unknown>; required?: string[] } } };
  implementation_config: Record<string, unknown>;
}

interface ImportResult {
  created: ImportedTool[];
  skipped: Array<{ operation: string; reason: string }>;
}

interface Problem {
  errors?: Array<{ field: string; message: string }>;
}

const fixture = (name: string): string => readFileSync(join(__dirname, '..', 'fixtures', 'openapi', name), 'utf8');

const toolNamed = (result: ImportResult, name: string): ImportedTool => {
  const tool = result.created.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name} among ${result.created.map((entry) => entry.name).join(', ')}`);
  return tool;
};

describe('POST /tools/import/openapi (e2e)', () => {
  let sut: TestApp;
  let key: string;
  let api: HttpTestServer;

  beforeAll(async () => {
    sut = await startTestApp({ OUTBOUND_ALLOW_PRIVATE: '127.0.0.1/32' });
    key = await sut.createUserKey();
    api = await startHttpTestServer((recorded, response) => {
      if (recorded.url === '/documents/petstore-expanded.json') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(fixture('swagger-2.0-petstore-expanded.json'));
        return;
      }
      sendJson(response, 200, { ok: true });
    });
  });

  afterAll(async () => {
    await api.close();
    await sut.close();
  });

  const importDocument = (body: Record<string, unknown>) =>
    request(sut.http).post('/api/v1/tools/import/openapi').set(bearer(key)).send(body);

  const execute = (name: string, args: Record<string, unknown>) =>
    request(sut.http).post(`/api/v1/tools/${name}/execute`).set(bearer(key)).send({ arguments: args }).expect(200);

  describe('the Swagger Petstore (OpenAPI 3.0, YAML text)', () => {
    let result: ImportResult;

    beforeAll(async () => {
      const response = await importDocument({
        document: fixture('openapi-3.0-petstore.yaml'),
        prefix: 'pet3_',
        base_url: `${api.origin}/api/v3`,
        auth: { type: 'bearer', token: 'petstore-token' },
      }).expect(201);
      result = response.body as ImportResult;
    });

    it('should create one tool per operation and skip the ones it cannot call, each with its reason', () => {
      expect(result.created).toHaveLength(17);
      expect(result.skipped).toEqual([
        { operation: 'uploadFile', reason: expect.stringMatching(/application\/octet-stream.*only JSON bodies/) },
        { operation: 'getInventory', reason: expect.stringMatching(/api_key.*bearer/) },
      ]);
      expect(result.created.every((tool) => tool.name.startsWith('pet3_'))).toBe(true);
    });

    it('should resolve every $ref into the parameters and keep required, enums and formats', () => {
      const addPet = toolNamed(result, 'pet3_addPet');
      const parameters = addPet.function_schema.function.parameters;

      expect(JSON.stringify(parameters)).not.toContain('$ref');
      expect(parameters.required).toEqual(['name', 'photoUrls']);
      expect(parameters.properties.category).toEqual({
        type: 'object',
        properties: { id: { type: 'integer', format: 'int64' }, name: { type: 'string' } },
      });
      expect(parameters.properties.status).toMatchObject({ type: 'string', enum: ['available', 'pending', 'sold'] });
      expect(addPet.effect).toBe('mutating');
      expect(toolNamed(result, 'pet3_getPetById').effect).toBe('read_only');
    });

    it('should mask the imported credentials like every tool secret', () => {
      expect(toolNamed(result, 'pet3_addPet').implementation_config.auth).toEqual({
        type: 'bearer',
        token: '********',
      });
    });

    it('should call the API with the method, path, exploded query and JSON body the document describes', async () => {
      api.requests.length = 0;

      const byTags = await execute('pet3_findPetsByTags', { tags: ['small', 'brown dog'] });
      const withForm = await execute('pet3_updatePetWithForm', { petId: 7, name: 'Rex', status: 'sold' });
      const added = await execute('pet3_addPet', {
        name: 'Rex',
        photoUrls: ['https://example.com/rex.png'],
        category: { id: 1, name: 'Dogs' },
      });

      expect([byTags, withForm, added].map((response) => (response.body as { success: boolean }).success)).toEqual([
        true,
        true,
        true,
      ]);
      const [first, second, third] = api.requests;
      expect([first.method, first.url]).toEqual(['GET', '/api/v3/pet/findByTags?tags=small&tags=brown+dog']);
      expect(first.headers.authorization).toBe('Bearer petstore-token');
      expect([second.method, second.url]).toEqual(['POST', '/api/v3/pet/7?name=Rex&status=sold']);
      expect([third.method, third.url]).toEqual(['POST', '/api/v3/pet']);
      expect(third.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(third.body)).toEqual({
        name: 'Rex',
        photoUrls: ['https://example.com/rex.png'],
        category: { id: 1, name: 'Dogs' },
      });
    });
  });

  describe('other documents', () => {
    it('should import the Redocly Museum API (OpenAPI 3.1) and list its webhook as skipped', async () => {
      const response = await importDocument({
        document: parseYaml(fixture('openapi-3.1-museum.yaml')) as unknown,
        prefix: 'museum_',
        dry_run: true,
      }).expect(201);
      const result = response.body as ImportResult;

      expect(result.created.map((tool) => tool.name).sort()).toEqual([
        'museum_buyMuseumTickets',
        'museum_createSpecialEvent',
        'museum_deleteSpecialEvent',
        'museum_getMuseumHours',
        'museum_getSpecialEvent',
        'museum_getTicketCode',
        'museum_listSpecialEvents',
        'museum_updateSpecialEvent',
      ]);
      expect(result.skipped).toEqual([
        { operation: 'webhook publishNewEvent', reason: expect.stringMatching(/request the API sends/) },
      ]);
      expect(toolNamed(result, 'museum_getMuseumHours').implementation_config.url).toBe(
        'https://redocly.com/_mock/docs/openapi/museum-api/museum-hours',
      );
    });

    it('should import a Swagger 2.0 document fetched from a URL, with its csv array query', async () => {
      const response = await importDocument({
        url: `${api.origin}/documents/petstore-expanded.json`,
        prefix: 'pet2_',
        base_url: `${api.origin}/api`,
      }).expect(201);
      const result = response.body as ImportResult;
      expect(result.created.map((tool) => tool.name)).toEqual([
        'pet2_findPets',
        'pet2_addPet',
        'pet2_find_pet_by_id',
        'pet2_deletePet',
      ]);
      expect(result.skipped).toEqual([]);
      api.requests.length = 0;

      await execute('pet2_findPets', { tags: ['a', 'b'], limit: 2 });
      await execute('pet2_deletePet', { id: 9 });

      expect(api.requests.map((recorded) => `${recorded.method} ${recorded.url}`)).toEqual([
        'GET /api/pets?tags=a%2Cb&limit=2',
        'DELETE /api/pets/9',
      ]);
    });

    it('should skip a form body of the USPTO API (OpenAPI 3.0 with server variables) and keep the rest', async () => {
      const response = await importDocument({ document: fixture('openapi-3.0-uspto.yaml'), dry_run: true }).expect(201);
      const result = response.body as ImportResult;

      expect(result.created.map((tool) => tool.name)).toEqual(['list-data-sets', 'list-searchable-fields']);
      expect(result.created[1].implementation_config.url).toBe(
        'https://developer.uspto.gov/ds-api/{dataset}/{version}/fields',
      );
      expect(result.skipped).toEqual([
        { operation: 'perform-search', reason: expect.stringMatching(/application\/x-www-form-urlencoded/) },
      ]);
    });
  });

  describe('dry runs and bad input', () => {
    it('should save nothing in a dry run', async () => {
      const response = await importDocument({
        document: fixture('openapi-3.0-petstore.yaml'),
        prefix: 'dry_',
        base_url: 'https://petstore.example.com/v3',
        dry_run: true,
      }).expect(201);
      const result = response.body as ImportResult;
      expect(result.created).toHaveLength(18);
      expect(result.created.every((tool) => tool.id === undefined)).toBe(true);

      const listed = await request(sut.http).get('/api/v1/tools?q=dry_').set(bearer(key)).expect(200);
      expect((listed.body as { total: number }).total).toBe(0);
    });

    it('should cut a recursive schema at its first repeat and say so in the description', async () => {
      const response = await importDocument({
        document: {
          openapi: '3.0.3',
          info: { title: 'Trees', version: '1' },
          servers: [{ url: 'https://trees.example.com' }],
          paths: {
            '/nodes': {
              post: {
                operationId: 'createNode',
                requestBody: {
                  required: true,
                  content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } },
                },
                responses: { '201': { description: 'created' } },
              },
            },
          },
          components: {
            schemas: {
              Node: {
                type: 'object',
                required: ['label'],
                properties: {
                  label: { type: 'string', nullable: true, example: 'root', 'x-internal': true },
                  children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
                },
              },
            },
          },
        },
        dry_run: true,
      }).expect(201);
      const tool = (response.body as ImportResult).created[0];
      const properties = tool.function_schema.function.parameters.properties;

      expect(properties.label).toEqual({ type: ['string', 'null'] });
      expect(properties.children).toEqual({
        type: 'array',
        items: { type: 'object', description: expect.stringMatching(/recursive/) as unknown },
      });
      expect(tool.description).toMatch(/contains itself/);
    });

    it('should refuse an external $ref, naming the field', async () => {
      const response = await importDocument({
        document: {
          openapi: '3.0.3',
          info: { title: 'x', version: '1' },
          paths: { '/a': { get: { responses: { '200': { $ref: '/etc/passwd' } } } } },
        },
      }).expect(400);
      expect((response.body as Problem).errors).toEqual([
        { field: 'document', message: expect.stringMatching(/external \$ref "\/etc\/passwd"/) },
      ]);
    });

    it('should refuse text that is not an OpenAPI document and unknown operations, naming the field', async () => {
      const notOpenApi = await importDocument({ document: 'just: yaml' }).expect(400);
      expect((notOpenApi.body as Problem).errors?.[0].field).toBe('document');

      const unknown = await importDocument({
        document: fixture('swagger-2.0-petstore-expanded.json'),
        operations: ['findPets', 'nope'],
      }).expect(400);
      expect((unknown.body as Problem).errors).toEqual([
        { field: 'operations', message: expect.stringMatching(/not in the document: nope/) },
      ]);
    });

    it('should refuse a document URL the outbound guard blocks', async () => {
      const response = await importDocument({ url: 'http://169.254.169.254/openapi.json' }).expect(400);
      expect((response.body as Problem).errors?.[0].field).toBe('url');
    });
  });
});
