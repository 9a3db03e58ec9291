import { assertVersionMatches, parseIfMatch } from './etag';

describe('parseIfMatch', () => {
  it('should keep a well-formed entity-tag that names no version, so it fails the precondition', () => {
    const precondition = parseIfMatch('"stale"');

    expect(precondition).toEqual(['stale']);
    expect(() => assertVersionMatches(precondition, 3, 'Tool "adder"')).toThrow(
      expect.objectContaining({ code: 'precondition_failed' }),
    );
  });

  it('should read weak tags, lists and tags holding commas', () => {
    expect(parseIfMatch('W/"3", "a,b" ,"4"')).toEqual(['3', 'a,b', '4']);
    expect(parseIfMatch(' * ')).toBe('any');
    expect(parseIfMatch(undefined)).toBeUndefined();
  });

  it.each(['not-an-etag', '"unterminated', '3', '"a" "b"', 'W/3', '"a"b"'])(
    'should refuse the malformed header %s as a validation error',
    (header) => {
      expect(() => parseIfMatch(header)).toThrow(expect.objectContaining({ code: 'validation_failed' }));
    },
  );

  it('should accept the current version in any position of the list', () => {
    expect(() => assertVersionMatches(parseIfMatch('"stale", W/"3"'), 3, 'Tool "adder"')).not.toThrow();
  });
});
