import { MAX_RETRY_WAIT_MS, cappedRetryAfter } from './retry-policy';

describe(cappedRetryAfter.name, () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it.each([
    ['3', 3000],
    ['Wed, 01 Jan 2025 00:00:05 GMT', 5000],
    ['Tue, 31 Dec 2024 23:59:00 GMT', 0],
    ['86400', MAX_RETRY_WAIT_MS],
  ])('should read %s as %d ms', (header, expected) => {
    expect(cappedRetryAfter(header, now)).toBe(expected);
  });

  it.each([undefined, '', 'soon'])('should ignore %p', (header) => {
    expect(cappedRetryAfter(header, now)).toBeNull();
  });
});
