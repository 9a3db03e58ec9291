import { checkParametersSchema } from './check-parameters-schema';
import AjvCore from 'ajv/dist/core';

describe(checkParametersSchema.name, () => {
  it('should accept a clean schema with no warnings', () => {
    const result = checkParametersSchema({
      type: 'object',
      properties: { city: { type: 'string', description: 'City', example: 'Paris', 'x-ui': 'text' } },
      required: ['city'],
      additionalProperties: false,
    });

    expect(result).toEqual({ problems: [], warnings: [] });
  });

  it('should require a schema object with root type object', () => {
    expect(checkParametersSchema([]).problems).toEqual([
      { path: '', message: 'parameters must be a JSON Schema object' },
    ]);
    expect(checkParametersSchema({ type: 'string' }).problems).toEqual([
      { path: '/type', message: 'the root of a parameters schema must have "type": "object"' },
    ]);
  });

  it('should name the JSON path of an invalid keyword value', () => {
    const result = checkParametersSchema({ type: 'object', properties: { city: { type: 'strin' } } });

    expect(result.problems).toHaveLength(1);
    expect(result.problems[0].path).toBe('/properties/city/type');
    expect(result.problems[0].message).toContain('"string"');
  });

  it('should report a non-array required', () => {
    expect(checkParametersSchema({ type: 'object', required: 'city' }).problems[0]).toMatchObject({
      path: '/required',
    });
  });

  it('should refuse patterns the linear-time engine cannot compile', () => {
    const result = checkParametersSchema({
      type: 'object',
      properties: { a: { type: 'string', pattern: '(a)\\1' }, b: { type: 'string', pattern: '^(?=x)' } },
      patternProperties: { '(?<=y)z': { type: 'string' } },
    });

    expect(result.problems.map((problem) => problem.path)).toEqual([
      '/patternProperties/(?<=y)z',
      '/properties/a/pattern',
      '/properties/b/pattern',
    ]);
  });

  it('should report a $ref that resolves nowhere', () => {
    const result = checkParametersSchema({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } });

    expect(result.problems).toEqual([{ path: '', message: expect.stringContaining('#/$defs/missing') }]);
  });

  it('should refuse an unsupported $schema', () => {
    const result = checkParametersSchema({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' });

    expect(result.problems).toEqual([{ path: '/$schema', message: expect.stringContaining('unsupported $schema') }]);
  });

  it('should meta-validate against draft-07 when declared', () => {
    const draft07 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      definitions: { a: { type: 'string' } },
    };

    expect(checkParametersSchema(draft07)).toEqual({ problems: [], warnings: [] });
    expect(checkParametersSchema({ ...draft07, properties: { b: { minLength: -1 } } }).problems[0].path).toBe(
      '/properties/b/minLength',
    );
  });

  it.each([
    ['propertes', 'properties', '/propertes'],
    ['require', 'required', '/require'],
    ['maxLenght', 'maxLength', '/properties/city/maxLenght'],
    ['enums', 'enum', '/properties/city/enums'],
  ])('should warn about %s and suggest %s', (keyword, suggestion, path) => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, [keyword]: ['x'] };
    if (path.startsWith('/properties')) Object.assign(schema.properties.city, { [keyword]: 3 });
    else Object.assign(schema, { [keyword]: {} });

    const { warnings } = checkParametersSchema(schema);

    expect(warnings).toContainEqual({
      path,
      keyword,
      suggestion,
      message: expect.stringContaining(`did you mean "${suggestion}"`),
    });
  });

  it('should walk nested subschemas', () => {
    const result = checkParametersSchema({
      type: 'object',
      properties: { list: { type: 'array', items: { anyOf: [{ type: 'string', maxLenght: 3 }] } } },
      $defs: { a: { not: { minimun: 1 } } },
    });

    expect(result.warnings.map((warning) => warning.path)).toEqual([
      '/properties/list/items/anyOf/0/maxLenght',
      '/$defs/a/not/minimun',
    ]);
  });

  it('should not treat property names as keywords', () => {
    expect(checkParametersSchema({ type: 'object', properties: { require: { type: 'string' } } }).warnings).toEqual([]);
  });

  it('should note misleading annotations and unknown keywords without a near miss', () => {
    const { warnings } = checkParametersSchema({
      type: 'object',
      properties: { city: { type: 'string', optional: true, colour: 'blue' } },
    });

    expect(warnings).toEqual([
      { path: '/properties/city/optional', keyword: 'optional', message: expect.stringContaining('"required" array') },
      {
        path: '/properties/city/colour',
        keyword: 'colour',
        message: 'unknown keyword "colour" is ignored by validation',
      },
    ]);
  });

  it('should warn that an unknown format is not validated', () => {
    const { problems, warnings } = checkParametersSchema({
      type: 'object',
      properties: { day: { type: 'string', format: 'dd-mm-yyyy' }, at: { type: 'string', format: 'date-time' } },
    });

    expect(problems).toEqual([]);
    expect(warnings).toEqual([
      {
        path: '/properties/day/format',
        keyword: 'format',
        message: expect.stringMatching(/^format "dd-mm-yyyy" is not validated/),
      },
    ]);
  });
});

describe('checkParametersSchema memory', () => {
  afterEach(() => jest.restoreAllMocks());

  it('should compile a schema it has seen once, and spread distinct schemas over short-lived Ajv instances', () => {
    const compile = jest.spyOn(AjvCore.prototype, 'compile');
    const schema = { type: 'object', properties: { city: { type: 'string', minLength: 7 } } };
    for (let index = 0; index < 300; index++)
      expect(checkParametersSchema(structuredClone(schema)).problems).toEqual([]);
    expect(compile).toHaveBeenCalledTimes(1);

    compile.mockClear();
    for (let index = 0; index < 450; index++) {
      checkParametersSchema({ type: 'object', properties: { [`field_${index}`]: { type: 'string' } } });
    }
    // Each instance keeps what it compiled for good (Ajv's code scope), so none may serve unbounded compiles.
    const perInstance = new Map<unknown, number>();
    for (const instance of compile.mock.contexts) perInstance.set(instance, (perInstance.get(instance) ?? 0) + 1);
    expect(compile).toHaveBeenCalledTimes(450);
    expect(Math.max(...perInstance.values())).toBeLessThanOrEqual(200);
  });
});

describe('checkParametersSchema with unknownKeywords: refuse', () => {
  const refuse = (schema: unknown) => checkParametersSchema(schema, { unknownKeywords: 'refuse' });

  it('should refuse a misspelled keyword, naming it and the keyword meant', () => {
    const { problems, warnings } = refuse({ type: 'object', propertes: { city: { type: 'string' } } });

    expect(problems).toEqual([
      { path: '/propertes', message: 'unknown keyword "propertes" would validate nothing; did you mean "properties"?' },
    ]);
    expect(warnings).toEqual([]);
  });

  it('should refuse unknown keywords at any depth, misleading ones with their explanation, and keep x- extensions', () => {
    const { problems } = refuse({
      type: 'object',
      'x-group': 'main',
      properties: {
        city: { type: 'string', optional: true, 'x-ui': 'text', example: 'Oslo' },
        tags: { type: 'array', items: { type: 'string', colour: 'blue' } },
      },
    });

    expect(problems).toEqual([
      { path: '/properties/city/optional', message: expect.stringContaining('"required" array') },
      { path: '/properties/city/example', message: expect.stringContaining('did you mean "examples"?') },
      { path: '/properties/tags/items/colour', message: expect.stringContaining('name your own annotations "x-…"') },
    ]);
  });

  it('should still only warn about an unknown format', () => {
    const { problems, warnings } = refuse({ type: 'object', properties: { day: { type: 'string', format: 'dd' } } });

    expect(problems).toEqual([]);
    expect(warnings.map((warning) => warning.keyword)).toEqual(['format']);
  });
});
