import { jsonHash } from './json-hash';

describe(jsonHash.name, () => {
  it('should give equal JSON one hash and different JSON another', () => {
    expect(jsonHash({ a: 1, b: [2] })).toBe(jsonHash({ a: 1, b: [2] }));
    expect(jsonHash({ a: 1, b: [2] })).not.toBe(jsonHash({ a: 1, b: [3] }));
    expect(jsonHash({ a: 1 })).toMatch(/^[0-9a-f]{16}$/);
  });
});
