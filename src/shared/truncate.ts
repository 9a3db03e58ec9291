export interface TruncateOptions {
  /** What replaces the cut-off end, given how many characters were left out. Default `… [N more characters]`. */
  note?: (omitted: number) => string;
  /** The note counts toward `maxChars`, so the result is never longer than it. Default false. */
  fit?: boolean;
}

const moreCharacters = (omitted: number): string => `… [${omitted} more characters]`;

/** Cuts text longer than `maxChars` and says so; shorter text comes back as it is. */
export const truncate = (text: string, maxChars: number, options: TruncateOptions = {}): string => {
  if (text.length <= maxChars) return text;
  const note = options.note ?? moreCharacters;
  if (!options.fit) return `${text.slice(0, maxChars)}${note(text.length - maxChars)}`;
  const probe = note(text.length - maxChars);
  const kept = Math.max(0, maxChars - probe.length);
  return `${text.slice(0, kept)}${note(text.length - kept)}`;
};

/** Cut to at most `maxChars` with a single `…` at the end: for short excerpts. */
export const ELLIPSIS: TruncateOptions = { note: () => '…', fit: true };
