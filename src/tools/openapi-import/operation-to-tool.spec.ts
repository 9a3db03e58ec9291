import { checkParametersSchema } from '../../json-schema/check-parameters-schema';
import type { ImportOperation } from './openapi-operations';
import { MAX_PARAMETERS_BYTES, operationToTool, type OperationToolOptions } from './operation-to-tool';

const operation = (overrides: Partial<ImportOperation> = {}): ImportOperation => ({
  key: 'op',
  operationId: 'op',
  method: 'post',
  path: '/things/{thing-id}',
  deprecated: false,
  parameters: [{ name: 'thing-id', in: 'path', required: true, deprecated: false, schema: { type: 'string' } }],
  security: [],
  callbacks: [],
  ...overrides,
});

const options: OperationToolOptions = {
  name: 'op',
  dialect: '3.0',
  category: 'things',
  baseUrl: 'https://api.example.com/v1/',
};

const created = (input: ImportOperation, extra: Partial<OperationToolOptions> = {}) => {
  const result = operationToTool(input, { ...options, ...extra });
  if (!result.ok) throw new Error(result.reason);
  const fn = result.tool.function_schema.function as { description: string; parameters: Record<string, unknown> };
  return { tool: result.tool, parameters: fn.parameters, config: result.tool.implementation_config ?? {} };
};

const skipReason = (input: ImportOperation, extra: Partial<OperationToolOptions> = {}): string => {
  const result = operationToTool(input, { ...options, ...extra });
  if (result.ok) throw new Error('expected a skip');
  return result.reason;
};

describe(operationToTool.name, () => {
  it('should give parameters with characters placeholders cannot hold a safe property name and map them back', () => {
    const { parameters, config } = created(
      operation({
        parameters: [
          { name: 'thing-id', in: 'path', required: true, deprecated: false, schema: { type: 'string' } },
          { name: 'X-Trace', in: 'header', required: false, deprecated: false, schema: { type: 'string' } },
          { name: 'page[size]', in: 'query', required: false, deprecated: true, schema: { type: 'integer' } },
        ],
      }),
    );

    expect(config).toEqual({
      url: 'https://api.example.com/v1/things/{thing_id}',
      method: 'POST',
      query: { 'page[size]': '{page_size_}' },
      headers: { 'X-Trace': '{X_Trace}' },
    });
    expect(parameters).toEqual({
      type: 'object',
      properties: {
        thing_id: { type: 'string', description: 'path parameter "thing-id"' },
        X_Trace: { type: 'string', description: 'header parameter "X-Trace"' },
        page_size_: { type: 'integer', description: 'query parameter "page[size]"', deprecated: true },
      },
      required: ['thing_id'],
      additionalProperties: false,
    });
  });

  it('should spread an object body into parameters and template it back', () => {
    const { parameters, config } = created(
      operation({
        body: {
          kind: 'json',
          required: true,
          schema: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, size: { type: 'integer' } },
          },
        },
      }),
    );

    expect(config.body).toEqual({ name: '{name}', size: '{size}' });
    expect(parameters.required).toEqual(['thing_id', 'name']);
  });

  it('should put the body under "body" when a body property shares a parameter name', () => {
    const { parameters, config } = created(
      operation({
        body: {
          kind: 'json',
          required: false,
          schema: { type: 'object', properties: { thing_id: { type: 'string' } } },
        },
      }),
    );

    expect(config.body).toBe('{body}');
    expect(parameters.properties).toHaveProperty('body', {
      type: 'object',
      properties: { thing_id: { type: 'string' } },
    });
    expect(parameters.required).toEqual(['thing_id']);
  });

  it('should put an array body under "body"', () => {
    const { parameters, config } = created(
      operation({ body: { kind: 'json', required: true, schema: { type: 'array', items: { type: 'string' } } } }),
    );

    expect(config.body).toBe('{body}');
    expect(parameters.required).toEqual(['thing_id', 'body']);
  });

  it('should start the description of a deprecated operation with "Deprecated."', () => {
    const { tool } = created(operation({ deprecated: true, summary: 'Make a thing' }));

    expect(tool.description).toBe('Deprecated. Make a thing');
  });

  it('should keep one tool under 64 KB by leaving deep parts open, and the result still passes the save check', () => {
    const wide = (depth: number): Record<string, unknown> =>
      depth === 0
        ? { type: 'string', description: 'x'.repeat(200) }
        : {
            type: 'object',
            properties: Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`p${i}`, wide(depth - 1)])),
          };

    const { tool, parameters } = created(operation({ body: { kind: 'json', required: true, schema: wide(6) } }));

    expect(JSON.stringify(parameters).length).toBeLessThanOrEqual(MAX_PARAMETERS_BYTES);
    expect(tool.description).toMatch(/not described \(size limit\)/);
    expect(checkParametersSchema(parameters).problems).toEqual([]);
  });

  it('should map the given auth to the scheme the operation accepts, taking the key name from the scheme', () => {
    const { config } = created(
      operation({ security: [[{ name: 'key', kind: 'api_key_query', parameter: 'apikey' }]] }),
      { auth: { type: 'api_key_query', key: 'secret' } },
    );

    expect(config.auth).toEqual({ type: 'api_key_query', key: 'secret', query_name: 'apikey' });
  });

  it('should skip an operation that only takes cookie auth, a required cookie or an unsupported query style', () => {
    expect(
      skipReason(operation({ security: [[{ name: 'session', kind: 'api_key_cookie', parameter: 'sid' }]] })),
    ).toMatch(/cookie auth is not supported/);
    expect(
      skipReason(
        operation({
          parameters: [
            { name: 'thing-id', in: 'path', required: true, deprecated: false, schema: {} },
            { name: 'sid', in: 'cookie', required: true, deprecated: false, schema: {} },
          ],
        }),
      ),
    ).toMatch(/cookie parameter "sid"/);
    expect(
      skipReason(
        operation({
          parameters: [
            { name: 'thing-id', in: 'path', required: true, deprecated: false, schema: {} },
            {
              name: 'ids',
              in: 'query',
              required: false,
              deprecated: false,
              style: 'matrix',
              schema: { type: 'array' },
            },
          ],
        }),
      ),
    ).toMatch(/style "matrix"/);
  });

  it('should skip an operation without an absolute server URL and ask for base_url', () => {
    expect(skipReason(operation(), { baseUrl: undefined })).toMatch(/base_url/);
  });
});
