import {
  checkOutputSchema,
  outputSchemaCheck,
  readStructuredAnswer,
  responseFormatFor,
} from './llm-node-structured-output';

const weather = {
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'number', minimum: -90 } },
  required: ['city', 'celsius'],
  additionalProperties: false,
};

describe(readStructuredAnswer.name, () => {
  it('should parse an answer that matches the schema', () => {
    expect(readStructuredAnswer('{"city":"Paris","celsius":21}', weather)).toEqual({
      ok: true,
      data: { city: 'Paris', celsius: 21 },
    });
  });

  it('should name every field that fails, with the rule, the value and what is expected', () => {
    const answer = readStructuredAnswer('{"celsius":-100,"wind":3}', weather);

    expect(answer).toEqual({
      ok: false,
      errors: [
        '/city: is required but missing (rule: required); received nothing; expected string',
        '/wind: is not an allowed property (rule: additionalProperties); received 3; expected no such property; allowed: city, celsius',
        '/celsius: must be >= -90 (rule: minimum); received -100; expected number, >= -90',
      ],
    });
  });

  it('should say when the answer is not JSON', () => {
    const answer = readStructuredAnswer('It is 21 °C in Paris.', weather);

    expect(answer.ok).toBe(false);
    expect(!answer.ok && answer.errors[0]).toMatch(/^the answer is not JSON: /);
  });
});

describe(`${readStructuredAnswer.name} (a fenced answer)`, () => {
  it('should read a ```json fenced answer that parses and matches, and mark it repaired', () => {
    const answer = readStructuredAnswer('```json\n{"city":"Paris","celsius":21}\n```', weather);

    expect(answer).toEqual({ ok: true, data: { city: 'Paris', celsius: 21 }, repaired: 'fenced' });
  });

  it('should read a bare ``` fence with blank space around it the same way', () => {
    const answer = readStructuredAnswer('\n```\n{"city":"Oslo","celsius":4}\n```\n', weather);

    expect(answer).toEqual({ ok: true, data: { city: 'Oslo', celsius: 4 }, repaired: 'fenced' });
  });

  it('should hold a fenced answer to the schema like any other', () => {
    const answer = readStructuredAnswer('```json\n{"city":"Paris"}\n```', weather);

    expect(answer).toEqual({
      ok: false,
      errors: ['/celsius: is required but missing (rule: required); received nothing; expected number, >= -90'],
    });
  });

  it('should refuse text around the fence or a fence with no JSON inside as not JSON', () => {
    for (const text of ['Here it is:\n```json\n{"city":"Paris","celsius":21}\n```', '```json\nParis, 21\n```']) {
      const answer = readStructuredAnswer(text, weather);

      expect(!answer.ok && answer.errors[0]).toMatch(/^the answer is not JSON: /);
    }
  });

  it('should let a fenced answer that matches stand, with no retry', () => {
    expect(outputSchemaCheck(weather, 1).check('```json\n{"city":"Paris","celsius":3}\n```')).toEqual({ ok: true });
  });
});

describe(outputSchemaCheck.name, () => {
  it('should give the model the errors and ask for the corrected JSON', () => {
    const verdict = outputSchemaCheck(weather, 2).check('{"city":"Paris"}');

    expect(verdict).toEqual({
      ok: false,
      problems: ['/celsius: is required but missing (rule: required); received nothing; expected number, >= -90'],
      feedback:
        'Your answer does not match the required JSON Schema:\n' +
        '- /celsius: is required but missing (rule: required); received nothing; expected number, >= -90\n' +
        'Answer again with only the JSON value, corrected.',
    });
    expect(outputSchemaCheck(weather, 2).check('{"city":"Paris","celsius":3}')).toEqual({ ok: true });
  });
});

describe(responseFormatFor.name, () => {
  it('should ask for strict mode only when the schema allows it, and name the format after the node', () => {
    expect(responseFormatFor('llm-1', weather)).toEqual({ name: 'llm-1', schema: weather, strict: true });
    const open = { ...weather, additionalProperties: true };
    expect(responseFormatFor('extract city.v2', open)).toEqual({
      name: 'extract_city_v2',
      schema: open,
      strict: false,
    });
  });
});

describe(checkOutputSchema.name, () => {
  it('should refuse a schema that is not an object schema or not valid', () => {
    expect(checkOutputSchema(weather)).toEqual([]);
    expect(checkOutputSchema({ type: 'string' })).toEqual([
      { field: 'output_schema.type', message: 'the root of an output_schema must have "type": "object"' },
    ]);
    expect(checkOutputSchema({ type: 'object', properties: { a: { type: 'strin' } } })).toEqual([
      expect.objectContaining({ field: 'output_schema.properties.a.type' }),
    ]);
  });
});
