import { appendPointer, unescapePointerSegment } from './json-pointer';

describe(appendPointer.name, () => {
  it('should escape ~ and / in a segment', () => {
    expect(appendPointer('', 'a/b~c')).toBe('/a~1b~0c');
    expect(appendPointer('/items', 0)).toBe('/items/0');
  });
});

describe(unescapePointerSegment.name, () => {
  it('should read back what appendPointer escaped', () => {
    expect(unescapePointerSegment('a~1b~0c')).toBe('a/b~c');
    expect(unescapePointerSegment('~01')).toBe('~1');
  });
});
