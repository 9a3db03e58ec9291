import { ELLIPSIS, truncate } from './truncate';

describe(truncate.name, () => {
  it('should leave text within the limit as it is', () => {
    expect(truncate('abc', 3)).toBe('abc');
    expect(truncate('abc', 3, ELLIPSIS)).toBe('abc');
  });

  it('should say how much was left out', () => {
    expect(truncate('abcdef', 2)).toBe('ab… [4 more characters]');
  });

  it('should use the note it is given', () => {
    expect(truncate('abcdef', 2, { note: (omitted) => ` (+${omitted})` })).toBe('ab (+4)');
  });

  it('should keep the result within the limit when the note must fit', () => {
    expect(truncate('abcdef', 4, ELLIPSIS)).toBe('abc…');
    expect(truncate('abcdef', 4, { note: (omitted) => `+${omitted}`, fit: true })).toBe('ab+4');
  });
});
