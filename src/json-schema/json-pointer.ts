/** Appends one segment to a JSON pointer, escaping `~` and `/` as RFC 6901 requires. */
export const appendPointer = (pointer: string, segment: string | number): string =>
  `${pointer}/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`;

/** One segment of a JSON pointer (as appendPointer wrote it) read back: `~1` is `/`, `~0` is `~`. */
export const unescapePointerSegment = (segment: string): string => segment.replace(/~1/g, '/').replace(/~0/g, '~');
