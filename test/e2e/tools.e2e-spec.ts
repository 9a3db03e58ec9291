import request from 'supertest';
import { toolBody } from '../factories/tool.factory';
import { ADMIN_KEY, bearer, startTestApp, type TestApp } from '../support/test-app';

interface Problem {
  status: number;
  detail: string;
  errors?: Array<{ field: string; message: string }>;
}

const admin = bearer(ADMIN_KEY);

describe('Tools API (e2e)', () => {
  let sut: TestApp;
  let userKey: string;
  let otherKey: string;

  beforeAll(async () => {
    sut = await startTestApp();
    userKey = await sut.createUserKey('alice');
    otherKey = await sut.createUserKey('bob');
  });

  afterAll(async () => {
    await sut.close();
  });

  const create = (body: Record<string, unknown>, key = userKey) =>
    request(sut.http).post('/api/v1/tools').set(bearer(key)).send(body);

  const fieldsOf = (body: Problem) => (body.errors ?? []).map((error) => error.field);

  describe('health and auth', () => {
    it('should answer /health without a key and report the database', async () => {
      const response = await request(sut.http).get('/health').expect(200);
      expect(response.body).toEqual({ status: 'ok', database: 'up' });
    });

    it('should refuse a request without a key with 401 problem+json', async () => {
      const response = await request(sut.http).get('/api/v1/tools').expect(401);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect((response.body as Problem).detail).toMatch(/Authorization: Bearer/);
    });

    it('should refuse an unknown key with 401', async () => {
      await request(sut.http).get('/api/v1/tools').set(bearer('tf_nope')).expect(401);
    });

    it('should let only admins create API keys', async () => {
      await request(sut.http)
        .post('/api/v1/api-keys')
        .set(bearer(userKey))
        .send({ name: 'x', role: 'admin' })
        .expect(403);
    });

    it('should never return a key after creation and never its hash', async () => {
      const response = await request(sut.http).get('/api/v1/api-keys').set(admin).expect(200);
      const text = JSON.stringify(response.body);
      expect(text).not.toContain(userKey);
      expect(text).not.toContain('key_hash');
      expect(text).not.toContain(ADMIN_KEY);
    });

    it('should refuse a revoked key', async () => {
      const created = await request(sut.http)
        .post('/api/v1/api-keys')
        .set(admin)
        .send({ name: 'temp', role: 'user' })
        .expect(201);
      const { id, key } = created.body as { id: string; key: string };
      await request(sut.http).get('/api/v1/tools').set(bearer(key)).expect(200);
      await request(sut.http).delete(`/api/v1/api-keys/${id}`).set(admin).expect(204);
      await request(sut.http).get('/api/v1/tools').set(bearer(key)).expect(401);
    });

    it('should serve the OpenAPI document with the bearer scheme and every tools route', async () => {
      const response = await request(sut.http).get('/api/docs-json').expect(200);
      const document = response.body as { paths: Record<string, unknown>; components: { securitySchemes: unknown } };
      expect(Object.keys(document.paths)).toEqual(
        expect.arrayContaining(['/api/v1/tools', '/api/v1/tools/{id}', '/api/v1/tools/builtin']),
      );
      expect(document.components.securitySchemes).toHaveProperty('bearer');
    });
  });

  describe('CRUD', () => {
    it('should create a tool, store the full OpenAI form and return it', async () => {
      const body = toolBody({ name: 'adder' });
      const response = await create(body).expect(201);
      expect(response.body).toMatchObject({
        name: 'adder',
        implementation_type: 'code',
        effect: 'read_only',
        is_public: false,
        enabled: true,
        user_id: 'alice',
        use_count: 0,
        version: 1,
        warnings: [],
      });
      expect(response.body.function_schema).toEqual(body.function_schema);
      const fetched = await request(sut.http).get(`/api/v1/tools/${response.body.id}`).set(bearer(userKey)).expect(200);
      expect(fetched.body.name).toBe('adder');
      const byName = await request(sut.http).get('/api/v1/tools/adder').set(bearer(userKey)).expect(200);
      expect(byName.body.id).toBe(response.body.id);
    });

    it('should accept the bare function form and store the full form', async () => {
      const response = await create(
        toolBody({
          name: 'bare_tool',
          function_schema: { name: 'bare_tool', description: 'bare', parameters: { type: 'object', properties: {} } },
        }),
      ).expect(201);
      expect(response.body.function_schema).toEqual({
        type: 'function',
        function: { name: 'bare_tool', description: 'bare', parameters: { type: 'object', properties: {} } },
      });
    });

    it('should replace with PUT and change fields with PATCH, bumping the version each time', async () => {
      const created = await create(toolBody({ name: 'changing' })).expect(201);
      const id = created.body.id as string;
      const put = await request(sut.http)
        .put(`/api/v1/tools/${id}`)
        .set(bearer(userKey))
        .send(toolBody({ name: 'changing', description: 'replaced', category: 'other' }))
        .expect(200);
      expect(put.body).toMatchObject({ description: 'replaced', category: 'other', version: 2 });
      const patch = await request(sut.http)
        .patch(`/api/v1/tools/${id}`)
        .set(bearer(userKey))
        .send({ enabled: false, name: 'changed' })
        .expect(200);
      expect(patch.body).toMatchObject({ enabled: false, name: 'changed', version: 3, description: 'replaced' });
      expect(patch.body.function_schema.function.name).toBe('changed');
    });

    it('should delete a tool, then answer 404 for it', async () => {
      const created = await create(toolBody({ name: 'short_lived' })).expect(201);
      await request(sut.http).delete(`/api/v1/tools/${created.body.id}`).set(bearer(userKey)).expect(204);
      await request(sut.http).get(`/api/v1/tools/${created.body.id}`).set(bearer(userKey)).expect(404);
      await request(sut.http).delete(`/api/v1/tools/${created.body.id}`).set(bearer(userKey)).expect(404);
    });

    it('should list with filters, search and pagination with a total', async () => {
      const key = await sut.createUserKey('lister');
      for (let index = 0; index < 5; index += 1) {
        await create(toolBody({ name: `list_math_${index}`, category: 'listing' }), key).expect(201);
      }
      await create(
        toolBody({ name: 'list_other', category: 'listing', description: 'Finds a needle', enabled: false }),
        key,
      ).expect(201);
      const page1 = await request(sut.http)
        .get('/api/v1/tools?category=listing&page=1&page_size=4')
        .set(bearer(key))
        .expect(200);
      expect(page1.body.total).toBe(6);
      expect(page1.body.items).toHaveLength(4);
      const page2 = await request(sut.http)
        .get('/api/v1/tools?category=listing&page=2&page_size=4')
        .set(bearer(key))
        .expect(200);
      expect(page2.body.items).toHaveLength(2);
      const names = [...page1.body.items, ...page2.body.items].map((tool: { name: string }) => tool.name);
      expect(new Set(names).size).toBe(6);
      const disabled = await request(sut.http).get('/api/v1/tools?category=listing&enabled=false').set(bearer(key));
      expect(disabled.body.items.map((tool: { name: string }) => tool.name)).toEqual(['list_other']);
      const search = await request(sut.http).get('/api/v1/tools?q=NEEDLE').set(bearer(key)).expect(200);
      expect(search.body.items.map((tool: { name: string }) => tool.name)).toEqual(['list_other']);
      const byType = await request(sut.http)
        .get('/api/v1/tools?implementation_type=builtin&page_size=100')
        .set(bearer(key))
        .expect(200);
      expect(byType.body.items.map((tool: { name: string }) => tool.name)).toEqual(
        expect.arrayContaining(['http_request', 'calculator', 'file_read']),
      );
      const literal = await request(sut.http).get('/api/v1/tools?q=list_math_').set(bearer(key)).expect(200);
      expect(literal.body.total).toBe(5);
      const wildcards = await request(sut.http).get('/api/v1/tools?q=list%25math').set(bearer(key)).expect(200);
      expect(wildcards.body.total).toBe(0);
    });

    it('should reject page_size over 100 and a bad enabled filter, naming the field', async () => {
      const response = await request(sut.http).get('/api/v1/tools?page_size=101&enabled=maybe').set(bearer(userKey));
      expect(response.status).toBe(400);
      expect(fieldsOf(response.body as Problem)).toEqual(expect.arrayContaining(['page_size', 'enabled']));
    });

    it('should list the builtin tool schemas', async () => {
      const response = await request(sut.http).get('/api/v1/tools/builtin').set(bearer(userKey)).expect(200);
      const names = (response.body as Array<{ name: string }>).map((tool) => tool.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'http_request',
          'web_fetch',
          'file_read',
          'current_time',
          'calculator',
          'database_query',
        ]),
      );
      for (const tool of response.body as Array<{
        function_schema: { type: string; function: { parameters: unknown } };
      }>) {
        expect(tool.function_schema.type).toBe('function');
        expect(tool.function_schema.function.parameters).toMatchObject({ type: 'object' });
      }
    });
  });

  describe('validation', () => {
    const expectProblem = async (body: Record<string, unknown>, field: string, message: RegExp) => {
      const response = await create(body);
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      const problem = (response.body as Problem).errors?.find((error) => error.field === field);
      expect(problem).toBeDefined();
      expect(problem?.message).toMatch(message);
    };

    it('should reject an invalid JSON Schema, naming the path of the keyword', async () => {
      const body = toolBody({ name: 'bad_schema' });
      (body.function_schema as { function: { parameters: unknown } }).function.parameters = {
        type: 'object',
        properties: { city: { type: 'strang' } },
      };
      await expectProblem(
        body,
        'function_schema.function.parameters.properties.city.type',
        /^"type" must be equal to one of the allowed values: "array", "boolean", "integer", "null", "number", "object", "string"$/,
      );
    });

    it('should reject parameters whose root is not an object', async () => {
      const body = toolBody({ name: 'array_root' });
      (body.function_schema as { function: { parameters: unknown } }).function.parameters = { type: 'array' };
      await expectProblem(body, 'function_schema.function.parameters.type', /object/);
    });

    it('should reject a bad tool name', async () => {
      await expectProblem(toolBody({ name: 'has space' }), 'name', /letters, digits/);
      await expectProblem(toolBody({ name: 'x'.repeat(65) }), 'name', /1-64/);
    });

    it('should reject a name that differs from the function name', async () => {
      const body = toolBody({ name: 'outer' });
      (body.function_schema as { function: { name: string } }).function.name = 'inner';
      await expectProblem(body, 'function_schema.function.name', /must equal the tool name "outer"/);
    });

    it('should reject an unknown implementation type', async () => {
      await expectProblem(
        toolBody({ implementation_type: 'python' }),
        'implementation_type',
        /builtin, http, workflow, code/,
      );
    });

    it('should reject a config that does not fit the implementation type', async () => {
      await expectProblem(
        toolBody({ implementation_config: { language: 'cobol', code: 'x' } }),
        'implementation_config.language',
        /javascript/,
      );
      await expectProblem(
        toolBody({ implementation_type: 'http', implementation_config: { method: 'GET' } }),
        'implementation_config',
        /url/,
      );
    });

    it('should reject unknown top-level fields', async () => {
      await expectProblem(toolBody({ colour: 'red' }), 'colour', /should not exist/);
    });

    it('should list every problem of a request at once', async () => {
      const response = await create({ name: 'bad name', description: 5, function_schema: 'x' });
      expect(response.status).toBe(400);
      expect(fieldsOf(response.body as Problem)).toEqual(
        expect.arrayContaining(['name', 'description', 'function_schema', 'implementation_type']),
      );
    });

    it('should answer 400 for malformed JSON', async () => {
      const response = await request(sut.http)
        .post('/api/v1/tools')
        .set(bearer(userKey))
        .set('Content-Type', 'application/json')
        .send('{"name": "x", ');
      expect(response.status).toBe(400);
      expect((response.body as Problem).detail).toMatch(/Malformed JSON/);
    });

    it('should answer 413 for a body over the limit', async () => {
      const body = toolBody({ name: 'huge', description: 'x'.repeat(sut.config.bodyLimitBytes + 10) });
      const response = await create(body);
      expect(response.status).toBe(413);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    });

    it('should refuse a misspelled schema keyword with a 400 naming the field and the keyword meant', async () => {
      const body = toolBody({ name: 'misspelled' });
      (body.function_schema as { function: { parameters: unknown } }).function.parameters = {
        type: 'object',
        propertes: { a: { type: 'string' } },
        properties: { note: { type: 'string', optional: true } },
      };
      const response = await create(body);
      expect(response.status).toBe(400);
      expect((response.body as Problem).errors).toEqual([
        {
          field: 'function_schema.function.parameters.propertes',
          message: 'unknown keyword "propertes" would validate nothing; did you mean "properties"?',
        },
        {
          field: 'function_schema.function.parameters.properties.note.optional',
          message: expect.stringContaining('"required" array'),
        },
      ]);
      await request(sut.http).get('/api/v1/tools/misspelled').set(bearer(userKey)).expect(404);
    });

    it('should refuse an unknown keyword on PUT and PATCH too, and accept x- extensions', async () => {
      const body = toolBody({ name: 'extended' });
      const fn = (body.function_schema as { function: { parameters: Record<string, unknown> } }).function;
      fn.parameters = {
        type: 'object',
        'x-owner': 'team',
        properties: { day: { type: 'string', format: 'dd-mm-yyyy', 'x-ui': 'date' } },
      };
      const created = await create(body).expect(201);
      expect(created.body.warnings).toEqual([expect.objectContaining({ keyword: 'format' })]);
      const id = (created.body as { id: string }).id;

      const misspelled = { type: 'object', properties: { day: { type: 'string', maxLenght: 3 } } };
      const put = await request(sut.http)
        .put(`/api/v1/tools/${id}`)
        .set(bearer(userKey))
        .send({ ...body, function_schema: { type: 'function', function: { ...fn, parameters: misspelled } } });
      expect(put.status).toBe(400);
      expect((put.body as Problem).errors).toEqual([
        {
          field: 'function_schema.function.parameters.properties.day.maxLenght',
          message: expect.stringContaining('did you mean "maxLength"?'),
        },
      ]);
      const patch = await request(sut.http)
        .patch(`/api/v1/tools/${id}`)
        .set(bearer(userKey))
        .send({ function_schema: { type: 'function', function: { ...fn, parameters: misspelled } } });
      expect(patch.status).toBe(400);
      expect(JSON.stringify(patch.body)).toContain('did you mean \\"maxLength\\"?');
    });

    it('should never answer 500 for odd but well-formed bodies', async () => {
      const odd = [
        [],
        'text',
        null,
        { name: null },
        toolBody({ function_schema: { type: 'function', function: null } }),
        toolBody({ function_schema: { type: 'function', function: { parameters: [] } } }),
        toolBody({ implementation_config: [] }),
        toolBody({ function_schema: { parameters: { type: 'object', properties: { a: { $ref: '#/nowhere' } } } } }),
        toolBody({ function_schema: { parameters: { type: 'object', properties: { a: { pattern: '(' } } } } }),
      ];
      for (const body of odd) {
        const response = await request(sut.http)
          .post('/api/v1/tools')
          .set(bearer(userKey))
          .set('Content-Type', 'application/json')
          .send(JSON.stringify(body));
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
      }
    });
  });

  describe('ownership and visibility', () => {
    it("should hide other users' private tools from lists and reads", async () => {
      const created = await create(toolBody({ name: 'alice_private' })).expect(201);
      await request(sut.http).get(`/api/v1/tools/${created.body.id}`).set(bearer(otherKey)).expect(404);
      const list = await request(sut.http).get('/api/v1/tools?q=alice_private').set(bearer(otherKey)).expect(200);
      expect(list.body.total).toBe(0);
      await request(sut.http).get(`/api/v1/tools/${created.body.id}`).set(admin).expect(200);
    });

    it('should let only the owner or an admin change or delete a tool', async () => {
      const created = await request(sut.http)
        .post('/api/v1/tools')
        .set(admin)
        .send(toolBody({ name: 'admin_public', is_public: true }))
        .expect(201);
      await request(sut.http).get('/api/v1/tools/admin_public').set(bearer(otherKey)).expect(200);
      await request(sut.http)
        .patch('/api/v1/tools/admin_public')
        .set(bearer(otherKey))
        .send({ enabled: false })
        .expect(403);
      await request(sut.http).delete(`/api/v1/tools/${created.body.id}`).set(bearer(otherKey)).expect(403);
      await request(sut.http).patch('/api/v1/tools/admin_public').set(admin).send({ enabled: false }).expect(200);
    });

    it('should let only admins create builtin tools or make tools public', async () => {
      const builtin = await create(
        toolBody({ name: 'my_calc', implementation_type: 'builtin', implementation_config: { builtin: 'calculator' } }),
      );
      expect(builtin.status).toBe(403);
      expect(fieldsOf(builtin.body as Problem)).toContain('implementation_type');
      const makePublic = await create(toolBody({ name: 'my_public', is_public: true }));
      expect(makePublic.status).toBe(403);
      await request(sut.http)
        .post('/api/v1/tools')
        .set(admin)
        .send(
          toolBody({
            name: 'calc_alias',
            implementation_type: 'builtin',
            implementation_config: { builtin: 'calculator' },
            function_schema: {
              name: 'calc_alias',
              description: 'math',
              parameters: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
            },
          }),
        )
        .expect(201);
    });

    it('should mask secrets on read and keep them when the mask is sent back', async () => {
      const body = toolBody({
        name: 'secret_http',
        implementation_type: 'http',
        effect: 'read_only',
        implementation_config: {
          url: 'https://api.example.com/sum',
          method: 'GET',
          auth: { type: 'bearer', token: 'super-secret-token' },
        },
      });
      const created = await create(body).expect(201);
      expect(JSON.stringify(created.body)).not.toContain('super-secret-token');
      expect(created.body.implementation_config.auth.token).toBe('********');
      const fetched = await request(sut.http).get('/api/v1/tools/secret_http').set(bearer(userKey)).expect(200);
      expect(JSON.stringify(fetched.body)).not.toContain('super-secret-token');
      const roundTrip = await request(sut.http)
        .put('/api/v1/tools/secret_http')
        .set(bearer(userKey))
        .send({ ...body, implementation_config: fetched.body.implementation_config, description: 'again' })
        .expect(200);
      expect(roundTrip.body.implementation_config.auth.token).toBe('********');
    });
  });

  describe('concurrency', () => {
    it('should give one 201 and 409 for the rest when the same name is created at once, with one row', async () => {
      const body = toolBody({ name: 'raced' });
      const responses = await Promise.all(Array.from({ length: 8 }, () => create(body)));
      const statuses = responses.map((response) => response.status).sort();
      expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
      const list = await request(sut.http).get('/api/v1/tools?q=raced').set(admin).expect(200);
      expect(list.body.total).toBe(1);
    });
  });
});
