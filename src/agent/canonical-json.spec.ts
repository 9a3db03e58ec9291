import { canonicalArguments, canonicalJson } from './canonical-json';

describe(canonicalJson.name, () => {
  it('should sort object keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}',
    );
  });

  it('should keep array order', () => {
    expect(canonicalJson([3, 1, 2])).toBe('[3,1,2]');
  });
});

describe(canonicalArguments.name, () => {
  it('should give the same string for arguments that differ only in key order and spacing', () => {
    expect(canonicalArguments('{"city": "Oslo", "days": 2}')).toBe(canonicalArguments('{"days":2,"city":"Oslo"}'));
  });

  it('should tell different values apart', () => {
    expect(canonicalArguments('{"days":2}')).not.toBe(canonicalArguments('{"days":3}'));
  });

  it('should treat empty arguments as an empty object', () => {
    expect(canonicalArguments('  ')).toBe('{}');
  });

  it('should compare text that is not JSON as trimmed text', () => {
    expect(canonicalArguments(' {city: Oslo ')).toBe('{city: Oslo');
  });
});
