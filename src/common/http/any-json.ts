/** OpenAPI for "any JSON value" (Nest would otherwise document an `unknown` field as an object). */
export const ANY_JSON = {
  oneOf: [
    { type: 'object', additionalProperties: true },
    { type: 'array', items: {} },
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'null' },
  ],
};
