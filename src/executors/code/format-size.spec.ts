import { formatSize } from './format-size';

describe(formatSize.name, () => {
  it.each([
    [0, '0 bytes'],
    [1023, '1023 bytes'],
    [1024, '1 KiB'],
    [3.5 * 1024, '3.5 KiB'],
    [1024 * 1024, '1 MiB'],
    [2.3 * 1024 * 1024, '2.3 MiB'],
    [2.34 * 1024 * 1024, '2.3 MiB'],
  ])('should format %d bytes as %s', (bytes, text) => {
    expect(formatSize(bytes)).toBe(text);
  });
});
