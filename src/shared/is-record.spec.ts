import { isRecord } from './is-record';

describe(isRecord.name, () => {
  it.each([{}, { a: 1 }, new Date(0), Object.create(null) as object])('should accept %p', (value) => {
    expect(isRecord(value)).toBe(true);
  });

  it.each([null, undefined, [], [1], 'text', 1, true, () => 1])('should refuse %p', (value) => {
    expect(isRecord(value)).toBe(false);
  });
});
