import { checkParametersSchema } from '../../json-schema/check-parameters-schema';
import { convertSchema, type ConvertOptions, UnsupportedSchemaError } from './convert-schema';

const options = (dialect: ConvertOptions['dialect'] = '3.0'): ConvertOptions => ({ dialect, notes: new Set() });

describe(convertSchema.name, () => {
  it('should turn OpenAPI 3.0 nullable into a type union and boolean exclusive bounds into numbers', () => {
    const schema = {
      type: 'integer',
      nullable: true,
      minimum: 1,
      exclusiveMinimum: true,
      maximum: 9,
      exclusiveMaximum: false,
    };

    expect(convertSchema(schema, options())).toEqual({ type: ['integer', 'null'], exclusiveMinimum: 1, maximum: 9 });
  });

  it('should add null to an enum that is nullable', () => {
    expect(convertSchema({ type: 'string', enum: ['a'], nullable: true }, options())).toEqual({
      type: ['string', 'null'],
      enum: ['a', null],
    });
  });

  it('should drop example, x- keys, discriminator and xml but keep formats, defaults and descriptions', () => {
    const schema = {
      type: 'object',
      discriminator: { propertyName: 'kind' },
      xml: { name: 'pet' },
      'x-internal': true,
      properties: {
        born: { type: 'string', format: 'date', default: '2020-01-01', example: '2021-02-03', description: 'Birthday' },
      },
    };

    const converted = convertSchema(schema, options());

    expect(converted).toEqual({
      type: 'object',
      properties: { born: { type: 'string', format: 'date', default: '2020-01-01', description: 'Birthday' } },
    });
    expect(checkParametersSchema(converted).problems).toEqual([]);
  });

  it('should leave 3.1 schemas in JSON Schema terms, nullable included (it is no 3.1 keyword)', () => {
    expect(convertSchema({ type: ['string', 'null'], examples: ['x'], nullable: true }, options('3.1'))).toEqual({
      type: ['string', 'null'],
      examples: ['x'],
    });
  });

  it('should cut a schema that contains itself at the first repeat and note it', () => {
    const node: Record<string, unknown> = { type: 'object', properties: {} };
    node.properties = { next: node, name: { type: 'string' } };
    const convert = options();

    const converted = convertSchema(node, convert);

    expect(converted).toEqual({
      type: 'object',
      properties: {
        next: { type: 'object', description: expect.stringMatching(/recursive/) as unknown },
        name: { type: 'string' },
      },
    });
    expect([...convert.notes].join()).toMatch(/"next" contains itself/);
  });

  it('should drop a pattern the linear-time engine cannot run, with a note, so the schema still saves', () => {
    const convert = options();

    const converted = convertSchema(
      { type: 'object', properties: { code: { type: 'string', pattern: '^(?=a)a$' } } },
      convert,
    );

    expect(converted).toEqual({ type: 'object', properties: { code: { type: 'string' } } });
    expect([...convert.notes].join()).toMatch(/pattern of "code" is not checked/);
  });

  it('should leave parts below maxDepth open with a note', () => {
    const convert = { ...options(), maxDepth: 1 };

    const converted = convertSchema(
      { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'object', properties: {} } } } } },
      convert,
    );

    expect(converted).toEqual({
      type: 'object',
      properties: {
        a: {
          type: 'object',
          properties: { b: { type: 'object', description: expect.stringMatching(/nested too deep/) as unknown } },
        },
      },
    });
  });

  it('should refuse a Swagger 2.0 file', () => {
    expect(() => convertSchema({ type: 'file' }, options('2.0'))).toThrow(UnsupportedSchemaError);
  });
});
