import { normalizeFunctionSchema } from './function-schema';

describe(normalizeFunctionSchema.name, () => {
  it('should refuse an unknown keyword in the parameters with the field and the keyword meant', () => {
    const result = normalizeFunctionSchema(
      { type: 'function', function: { name: 'lookup', parameters: { type: 'object', propertes: {} } } },
      'lookup',
      'Looks up',
    );

    expect(result).toEqual({
      ok: false,
      problems: [
        {
          field: 'function_schema.function.parameters.propertes',
          message: 'unknown keyword "propertes" would validate nothing; did you mean "properties"?',
        },
      ],
    });
  });

  it('should accept x- extensions', () => {
    const result = normalizeFunctionSchema(
      { parameters: { type: 'object', 'x-owner': 'team', properties: { id: { type: 'string', 'x-ui': 'id' } } } },
      'lookup',
      'Looks up',
    );

    expect(result).toMatchObject({ ok: true, warnings: [] });
  });
});
