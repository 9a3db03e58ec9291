/** Appends one segment to a JSON pointer, escaping `~` and `/` as RFC 6901 requires. */
export const appendPointer = (pointer: string, segment: string | number): string =>
  `${pointer}/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`;
