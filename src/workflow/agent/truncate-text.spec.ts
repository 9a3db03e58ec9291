import { truncateText } from './truncate-text';

describe(truncateText.name, () => {
  it('should keep text that fits', () => {
    expect(truncateText('abc', 3)).toBe('abc');
  });

  it('should cut longer text and say how much was left out', () => {
    expect(truncateText('abcdef', 2)).toBe('ab… [4 more characters]');
  });
});
