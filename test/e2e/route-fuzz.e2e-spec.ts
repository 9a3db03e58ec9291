import fc from 'fast-check';
import request from 'supertest';
import { ADMIN_KEY, bearer, startTestApp, type TestApp } from '../support/test-app';

type Schema = Record<string, unknown>;
interface Operation {
  method: string;
  path: string;
  body: Schema | undefined;
}

/** Values that broke typed fields before: prototype-shaped objects, null, wrong types, deep nesting. */
const HOSTILE_TEXT = [
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '{"__proto__":{"polluted":"yes"}}',
  '{"prototype":{"polluted":"yes"}}',
  'null',
  '[]',
  '{}',
  '""',
  '-1',
  '1e308',
  'true',
  `"${'x'.repeat(5000)}"`,
  `${'['.repeat(200)}${']'.repeat(200)}`,
];
/** Requests per route; ~60 routes, so a few hundred requests in all. */
const RUNS_PER_ROUTE = 12;

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null;

/** JSON text of a value valid for `schema` as far as its type goes (enough to get past the first checks). */
function validText(schema: Schema | undefined, components: Schema, depth = 0): fc.Arbitrary<string> {
  const resolved = resolve(schema, components);
  if (resolved === undefined || depth > 3) return fc.constant('{}');
  if (Array.isArray(resolved.enum) && resolved.enum.length > 0) {
    return fc.constantFrom(...resolved.enum.map((item) => JSON.stringify(item)));
  }
  const type = String(Array.isArray(resolved.type) ? resolved.type[0] : resolved.type);
  switch (type) {
    case 'string':
      return fc.string({ maxLength: 20 }).map((text) => JSON.stringify(text));
    case 'integer':
    case 'number':
      return fc.integer({ min: -5, max: 100 }).map(String);
    case 'boolean':
      return fc.boolean().map(String);
    case 'array':
      return fc
        .array(validText(resolved.items as Schema | undefined, components, depth + 1), { maxLength: 2 })
        .map((items) => `[${items.join(',')}]`);
    default:
      return objectText(resolved, components, depth);
  }
}

/** An object of the schema's properties, each valid, hostile or left out. */
function objectText(schema: Schema, components: Schema, depth: number): fc.Arbitrary<string> {
  const properties = isSchema(schema.properties) ? Object.entries(schema.properties) : [];
  if (properties.length === 0) return fc.constantFrom('{}', ...HOSTILE_TEXT);
  const fields = properties.map(([name, property]) =>
    fc
      .oneof(
        { weight: 3, arbitrary: validText(property as Schema, components, depth + 1) },
        { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_TEXT) },
        { weight: 1, arbitrary: fc.constant(undefined) },
      )
      .map((text) => (text === undefined ? undefined : `${JSON.stringify(name)}:${text}`)),
  );
  return fc.tuple(...fields).map((parts) => `{${parts.filter((part) => part !== undefined).join(',')}}`);
}

function resolve(schema: Schema | undefined, components: Schema): Schema | undefined {
  let current = schema;
  for (let hops = 0; hops < 10 && current && typeof current.$ref === 'string'; hops++) {
    const name = current.$ref.split('/').at(-1) ?? '';
    current = (components[name] as Schema | undefined) ?? undefined;
  }
  const first = current && (Array.isArray(current.allOf) ? (current.allOf[0] as Schema) : undefined);
  return first ? resolve(first, components) : current;
}

const pathParameter = fc.constantFrom(
  '1',
  'does-not-exist',
  '00000000-0000-0000-0000-000000000000',
  'calculator',
  '%00',
);

describe('Every route under fuzzing (e2e)', () => {
  let sut: TestApp;
  let operations: Operation[] = [];
  let components: Schema = {};

  beforeAll(async () => {
    sut = await startTestApp();
    const document = (await request(sut.http).get('/api/docs-json').expect(200)).body as {
      paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
      components?: { schemas?: Schema };
    };
    components = document.components?.schemas ?? {};
    operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map(([method, operation]) => ({
          method,
          path,
          body: operation.requestBody?.content?.['application/json']?.schema,
        })),
    );
  });

  afterAll(() => sut.close());

  it('should answer every route of the OpenAPI document without a 5xx and leave Object.prototype alone', async () => {
    const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
    const failures: string[] = [];
    let requests = 0;
    expect(operations.length).toBeGreaterThan(30);

    for (const operation of operations) {
      // The SSE streams and the MCP endpoint hold the connection open; they are tested elsewhere.
      if (/\/events$|\/mcp$|\/stream$/.test(operation.path)) continue;
      await fc
        .assert(
          fc.asyncProperty(
            fc.array(pathParameter, { minLength: 4, maxLength: 4 }),
            operation.body ? validText(operation.body, components) : fc.constant(undefined),
            async (ids, body) => {
              let index = 0;
              const path = operation.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(ids[index++ % ids.length]));
              const method = operation.method as 'get' | 'post' | 'put' | 'patch' | 'delete';
              let call = request(sut.http)[method](path).set(bearer(ADMIN_KEY)).timeout(15_000);
              if (body !== undefined) call = call.set('Content-Type', 'application/json').send(body);
              const response = await call;
              requests++;
              if (response.status >= 500) {
                failures.push(`${method.toUpperCase()} ${path} ${body ?? ''} -> ${response.status}`);
              }
              return response.status < 500;
            },
          ),
          { numRuns: RUNS_PER_ROUTE, seed: 21, endOnFailure: true },
        )
        .catch(() => undefined);
    }

    console.log(`route fuzz: ${requests} requests over ${operations.length} routes`);
    expect(failures).toEqual([]);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 300_000);
});
