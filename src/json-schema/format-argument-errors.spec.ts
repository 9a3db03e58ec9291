import type { ArgumentError } from '../shared/argument-error';
import { formatArgumentErrors } from './format-argument-errors';

const schema = {
  type: 'object',
  properties: { city: { type: 'string' }, units: { type: 'string', enum: ['C', 'F'] }, days: { type: 'integer' } },
  required: ['city'],
};

const errors: ArgumentError[] = [
  { path: '/city', message: 'is required but missing', value: undefined, rule: 'required', expected: 'string' },
  {
    path: '/units',
    message: 'must be equal to one of the allowed values',
    value: 'K',
    rule: 'enum',
    expected: '"C" | "F"',
  },
];

describe(formatArgumentErrors.name, () => {
  it('should list each field with rule, received value and expectation, then the expected shape', () => {
    const text = formatArgumentErrors('get_weather', errors, schema);

    expect(text).toBe(
      [
        'Invalid arguments for tool "get_weather". Fix them and call the tool again.',
        '- /city: is required but missing (rule: required); received nothing; expected string',
        '- /units: must be equal to one of the allowed values (rule: enum); received "K"; expected "C" | "F"',
        'Expected arguments: {city: string, units?: "C" | "F", days?: integer}',
      ].join('\n'),
    );
  });

  it('should name the whole arguments object when the path is empty', () => {
    const text = formatArgumentErrors(
      't',
      [{ path: '', message: 'not JSON', value: 'oops', rule: 'json', expected: 'a JSON object' }],
      schema,
    );

    expect(text).toContain('- (arguments): not JSON (rule: json); received "oops"; expected a JSON object');
  });

  it('should stay under 1500 characters and say how many errors were left out', () => {
    const many = Array.from({ length: 60 }, (_, index): ArgumentError => ({
      path: `/items/${index}/quantity`,
      message: 'must be integer',
      value: 'x'.repeat(200),
      rule: 'type',
      expected: 'integer',
    }));

    const text = formatArgumentErrors('bulk', many, schema);

    expect(text.length).toBeLessThanOrEqual(1500);
    expect(text).toMatch(/- … and \d+ more errors/);
    expect(text).toContain('/items/0/quantity');
    expect(text.endsWith('days?: integer}')).toBe(true);
  });
});
