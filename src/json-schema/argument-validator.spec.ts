import { ArgumentValidator } from './argument-validator';
import { ParametersSchemaError } from './parameters-schema-error';

const weatherSchema = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 1 },
    units: { type: 'string', enum: ['C', 'F'] },
    items: {
      type: 'array',
      items: { type: 'object', properties: { qty: { type: 'integer', minimum: 1 } }, required: ['qty'] },
    },
  },
  required: ['city'],
  additionalProperties: false,
};

describe(ArgumentValidator.name, () => {
  let sut: ArgumentValidator;

  beforeEach(() => {
    sut = new ArgumentValidator({ cacheSize: 3 });
  });

  it('should accept valid arguments', () => {
    expect(sut.validate('weather@1', weatherSchema, { city: 'Paris', units: 'C' })).toEqual({ ok: true });
  });

  it('should report every error with JSON pointer paths, values, rules and expectations', () => {
    const result = sut.validate('weather@1', weatherSchema, { units: 'K', items: [{ qty: 0 }], extra: true });

    expect(result).toEqual({
      ok: false,
      errors: [
        {
          path: '/city',
          message: 'is required but missing',
          value: undefined,
          rule: 'required',
          expected: 'string, at least 1 chars',
        },
        {
          path: '/extra',
          message: 'is not an allowed property',
          value: true,
          rule: 'additionalProperties',
          expected: 'no such property; allowed: city, units, items',
        },
        {
          path: '/units',
          message: 'must be equal to one of the allowed values',
          value: 'K',
          rule: 'enum',
          expected: '"C" | "F"',
        },
        { path: '/items/0/qty', message: 'must be >= 1', value: 0, rule: 'minimum', expected: 'integer, >= 1' },
      ],
    });
  });

  it('should mask the rejected value of a credential-named field, and credentials inside URLs', () => {
    const schema = {
      type: 'object',
      properties: { api_key: { type: 'string', minLength: 40 }, headers: { type: 'object', maxProperties: 0 } },
      additionalProperties: false,
    };
    const result = sut.validate('secrets@1', schema, {
      api_key: 'short-key-1234',
      headers: { Authorization: 'Bearer bearer-5678' },
      callback: 'https://h.test/?token=token-9999',
    });

    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).not.toMatch(/1234|5678|9999/);
    expect(result.ok ? [] : result.errors.map((error) => [error.path, error.value])).toEqual([
      ['/callback', 'https://h.test/?token=********'],
      ['/api_key', '********'],
      ['/headers', { Authorization: '********' }],
    ]);
  });

  it('should reuse the compiled validator for the same key', () => {
    sut.validate('weather@1', weatherSchema, { city: 'a' });
    sut.validate('weather@1', { ...weatherSchema }, { city: 'b' });

    expect(sut.compileCount).toBe(1);
  });

  it('should compile again when the version in the key changes', () => {
    sut.validate('weather@1', weatherSchema, { city: 'a' });
    const stricter = { ...weatherSchema, required: ['city', 'units'] };

    const result = sut.validate('weather@2', stricter, { city: 'a' });

    expect(sut.compileCount).toBe(2);
    expect(result.ok).toBe(false);
  });

  it('should evict the least recently used validator past the cache size', () => {
    for (const key of ['a', 'b', 'c', 'd']) sut.validate(key, weatherSchema, { city: 'x' });
    sut.validate('a', weatherSchema, { city: 'x' });

    expect(sut.cachedCount).toBe(3);
    expect(sut.compileCount).toBe(5);
  });

  it('should match patterns in linear time so a ReDoS pattern returns', () => {
    const schema = { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } };

    const result = sut.validate('redos', schema, { code: `${'a'.repeat(50)}!` });

    expect(result).toMatchObject({ ok: false, errors: [{ path: '/code', rule: 'pattern' }] });
    expect(sut.validate('redos', schema, { code: 'aaaa' })).toEqual({ ok: true });
  });

  it('should tolerate annotation keywords and unknown formats', () => {
    const schema = {
      type: 'object',
      properties: {
        day: { type: 'string', format: 'dd-mm-yyyy', example: '01-02-2024', 'x-ui': 'date', optional: true },
      },
    };

    expect(sut.validate('annotated', schema, { day: 'anything' })).toEqual({ ok: true });
  });

  it('should validate known formats', () => {
    const schema = { type: 'object', properties: { when: { type: 'string', format: 'date' } } };

    expect(sut.validate('dated', schema, { when: 'tomorrow' })).toMatchObject({
      ok: false,
      errors: [{ rule: 'format' }],
    });
  });

  it('should apply draft 2020-12 semantics when $schema is absent', () => {
    const schema = {
      type: 'object',
      properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } },
    };

    expect(sut.validate('pair-2020', schema, { pair: ['a', 'b'] })).toMatchObject({
      ok: false,
      errors: [{ path: '/pair/1', rule: 'type' }],
    });
  });

  it('should apply draft-07 semantics when $schema says so', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } },
    };

    expect(sut.validate('pair-07', schema, { pair: ['a', 'b'] })).toMatchObject({
      ok: false,
      errors: [{ path: '/pair/1', rule: 'type' }],
    });
  });

  it('should throw ParametersSchemaError for a schema that cannot compile', () => {
    const schema = { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } };

    expect(() => sut.validate('broken', schema, {})).toThrow(ParametersSchemaError);
  });

  it('should refuse a pattern the linear-time engine cannot run', () => {
    const schema = { type: 'object', properties: { a: { type: 'string', pattern: '(a)\\1' } } };

    expect(() => sut.validate('backref', schema, { a: 'aa' })).toThrow(/not supported/);
  });

  it('should let two tools declare the same $id', () => {
    const schema = { $id: 'https://example.com/args', type: 'object', properties: { a: { type: 'string' } } };

    sut.validate('one', schema, { a: 'x' });

    expect(sut.validate('two', { ...schema, required: ['a'] }, {})).toMatchObject({ ok: false });
  });
});
