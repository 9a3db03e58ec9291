import { parseToolArguments } from './arguments';

describe(parseToolArguments.name, () => {
  it.each(['', '   \n', 'null'])('should treat %j as no arguments', (raw) => {
    expect(parseToolArguments(raw)).toEqual({ ok: true, value: {}, repaired: false });
  });

  it('should accept valid JSON without marking it repaired', () => {
    expect(parseToolArguments('{"city":"Paris","days":3}')).toEqual({
      ok: true,
      value: { city: 'Paris', days: 3 },
      repaired: false,
    });
  });

  it('should accept an already parsed object', () => {
    expect(parseToolArguments({ city: 'Paris' })).toEqual({ ok: true, value: { city: 'Paris' }, repaired: false });
  });

  it.each([
    ['trailing garbage', '{"city":"Paris"} hope this helps', 'ignored text around the JSON object'],
    ['leading prose', 'Sure! {"city":"Paris"}', 'ignored text around the JSON object'],
    ['an unescaped newline in a string', '{"city":"Pa\nris"}', 'repaired malformed JSON'],
    ['single quotes', "{'city':'Paris'}", 'repaired malformed JSON'],
    ['a trailing comma', '{"city":"Paris",}', 'repaired malformed JSON'],
    ['a markdown fence', '```json\n{"city":"Paris"}\n```', 'repaired malformed JSON'],
    ['a missing closing brace', '{"city":"Paris"', 'repaired malformed JSON'],
  ])('should repair %s', (_case, raw, note) => {
    const result = parseToolArguments(raw);

    expect(result).toMatchObject({ ok: true, repaired: true, repairNote: note });
    expect(result.ok && Object.keys(result.value)).toEqual(['city']);
  });

  it.each(['add(a=7, b=8)', '(a=7, b=8)', 'a=7, b=8', "functions.add(a=7, b=8, note='x')"])(
    'should read Python-style keyword arguments in %j',
    (raw) => {
      const result = parseToolArguments(raw);

      expect(result).toMatchObject({ ok: true, repaired: true, repairNote: 'read Python-style keyword arguments' });
      expect(result.ok && result.value).toMatchObject({ a: 7, b: 8 });
    },
  );

  it('should refuse a positional Python-style call instead of guessing', () => {
    expect(parseToolArguments('add(7, 8)')).toMatchObject({ ok: false });
  });

  it('should decode arguments that were JSON-encoded twice', () => {
    const raw = JSON.stringify(JSON.stringify({ city: 'Paris' }));

    expect(parseToolArguments(raw)).toEqual({
      ok: true,
      value: { city: 'Paris' },
      repaired: true,
      repairNote: 'decoded arguments that were a JSON-encoded string',
    });
  });

  it('should keep braces inside strings when cutting surrounding text', () => {
    expect(parseToolArguments('{"q":"a } b"} trailing')).toMatchObject({ ok: true, value: { q: 'a } b' } });
  });

  it.each([
    ['[1,2]', 'an array'],
    ['42', 'a number'],
    ['true', 'a boolean'],
    ['just some words', 'a string'],
  ])('should refuse %j because it is %s', (raw, kind) => {
    expect(parseToolArguments(raw)).toEqual({ ok: false, message: `arguments must be a JSON object, got ${kind}` });
  });

  it('should refuse a parsed array', () => {
    expect(parseToolArguments([1])).toEqual({ ok: false, message: 'arguments must be a JSON object, got an array' });
  });

  it('should refuse oversized input without parsing it', () => {
    const result = parseToolArguments(`{"a":"${'x'.repeat(1_000_001)}"}`);

    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(/too long/);
  });
});

describe('parseToolArguments nesting', () => {
  it('should refuse arguments nested deeper than the JSON limit with a message that says so', () => {
    const deep = `{"expression":${'['.repeat(5000)}1${']'.repeat(5000)}}`;

    expect(parseToolArguments(deep)).toEqual({ ok: false, message: 'arguments are nested deeper than 128 levels' });
    expect(parseToolArguments(`{"a":${'['.repeat(100)}${']'.repeat(100)}}`)).toMatchObject({ ok: true });
  });
});
