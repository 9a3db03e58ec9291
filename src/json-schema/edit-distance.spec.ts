import { closestMatch, editDistance } from './edit-distance';

describe(editDistance.name, () => {
  it.each([
    ['', 'abc', 3],
    ['kitten', 'sitting', 3],
    ['maxLenght', 'maxLength', 1],
    ['propertes', 'properties', 1],
    ['same', 'same', 0],
  ])('should measure %j → %j as %d', (a, b, expected) => {
    expect(editDistance(a, b)).toBe(expected);
  });
});

describe(closestMatch.name, () => {
  it('should pick the nearest candidate and break ties alphabetically', () => {
    expect(closestMatch('maxLenght', ['maxLength', 'minLength'])).toBe('maxLength');
    expect(closestMatch('ab', ['ac', 'aa'])).toBe('aa');
  });

  it('should return nothing beyond the distance limit', () => {
    expect(closestMatch('colour', ['const', 'enum'])).toBeUndefined();
  });
});
