import { nestedDeeperThan } from './body-depth';

describe(nestedDeeperThan.name, () => {
  const nested = (levels: number): unknown => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`);

  it('should count the value itself as the first level', () => {
    expect(nestedDeeperThan({ a: [1] }, 2)).toBe(false);
    expect(nestedDeeperThan({ a: [[1]] }, 2)).toBe(true);
  });

  it('should treat scalars and strings full of brackets as flat', () => {
    expect(nestedDeeperThan('[[[[[[', 0)).toBe(false);
    expect(nestedDeeperThan({ text: '{{{{{{{{' }, 1)).toBe(false);
  });

  it('should measure 100,000 levels without overflowing the stack', () => {
    expect(nestedDeeperThan(nested(100_000), 128)).toBe(true);
    expect(nestedDeeperThan(nested(128), 128)).toBe(false);
  });
});
