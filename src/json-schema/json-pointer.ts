/** Appends one segment to a JSON pointer, escaping `~` and `/` as RFC 6901 requires. */
export const appendPointer = (pointer: string, segment: string | number): string =>
  `${pointer}/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`;

/** One segment of a JSON pointer (as appendPointer wrote it) read back: `~1` is `/`, `~0` is `~`. */
export const unescapePointerSegment = (segment: string): string => segment.replace(/~1/g, '/').replace(/~0/g, '~');

/** A JSON pointer into a request field as the field path errors name (`base` + `/items/0` → `base.items.0`). */
export const pointerToField = (base: string, pointer: string): string =>
  pointer
    .split('/')
    .slice(1)
    .map(unescapePointerSegment)
    .reduce((field, part) => `${field}.${part}`, base);
