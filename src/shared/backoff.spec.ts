import { backoffDelayMs, parseRetryAfter } from './backoff';

describe(backoffDelayMs.name, () => {
  it('should double the ceiling on each retry and draw below it', () => {
    const options = { baseDelayMs: 100, maxDelayMs: 10_000, random: () => 0.999 };
    expect([0, 1, 2].map((retry) => backoffDelayMs(retry, options))).toEqual([99, 199, 399]);
    expect(backoffDelayMs(2, { ...options, random: () => 0 })).toBe(0);
  });

  it('should never exceed the maximum delay', () => {
    expect(backoffDelayMs(30, { baseDelayMs: 500, maxDelayMs: 8_000, random: () => 0.999 })).toBe(7_992);
  });
});

describe(parseRetryAfter.name, () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it.each([
    ['3', 3000],
    ['1.5', 1500],
    [' 2 ', 2000],
    ['86400', 86_400_000],
    ['Wed, 01 Jan 2025 00:00:05 GMT', 5000],
    ['Tue, 31 Dec 2024 23:59:00 GMT', 0],
  ])('should read %p as %d ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });

  it.each([undefined, null, '', '  ', 'soon'])('should ignore %p', (value) => {
    expect(parseRetryAfter(value, now)).toBeNull();
  });
});
