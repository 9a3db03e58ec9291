import { jsonTextDepth, JsonTooDeepError, parseJsonWithin } from './json-depth';

describe('jsonTextDepth', () => {
  it('should count object and array nesting and ignore brackets inside strings', () => {
    expect(jsonTextDepth('{"a":[{"b":"[[[{{{\\"]]"}]}')).toBe(3);
    expect(jsonTextDepth('42')).toBe(0);
    expect(jsonTextDepth('['.repeat(1_000_000))).toBe(1_000_000);
  });
});

describe('parseJsonWithin', () => {
  it('should parse JSON within the limit and refuse deeper JSON before parsing it', () => {
    expect(parseJsonWithin('{"a":[1]}')).toEqual({ a: [1] });
    expect(() => parseJsonWithin(`${'['.repeat(129)}${']'.repeat(129)}`)).toThrow(JsonTooDeepError);
    expect(() => parseJsonWithin(`${'['.repeat(129)}${']'.repeat(129)}`)).toThrow('nested deeper than 128 levels');
  });
});
