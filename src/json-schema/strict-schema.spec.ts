import { strictModeProblem } from './strict-schema';

const closed = (properties: Record<string, unknown>) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

describe(strictModeProblem.name, () => {
  it('should take a schema whose objects are closed and require every property', () => {
    const schema = closed({
      city: { type: 'string', pattern: '^[A-Z]' },
      days: { type: 'array', items: closed({ high: { type: ['number', 'null'] } }), maxItems: 7 },
      kind: { anyOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }] },
    });

    expect(strictModeProblem(schema)).toBeNull();
  });

  it('should name what strict mode refuses', () => {
    expect(strictModeProblem({ type: 'array' })).toBe('the root is not "type": "object"');
    expect(strictModeProblem({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] })).toBe(
      'the root does not set "additionalProperties": false',
    );
    expect(strictModeProblem({ ...closed({ a: { type: 'string' } }), required: [] })).toBe(
      'the root does not require "a"',
    );
    expect(strictModeProblem(closed({ a: { type: 'object', properties: {} } }))).toBe(
      '/properties/a does not set "additionalProperties": false',
    );
    expect(strictModeProblem(closed({ a: { type: 'string', minLength: 1 } }))).toBe('/properties/a uses "minLength"');
    expect(strictModeProblem(closed({ a: { oneOf: [{ type: 'string' }] } }))).toBe('/properties/a uses "oneOf"');
  });
});
