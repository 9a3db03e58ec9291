/**
 * A LIKE pattern that matches `text` literally anywhere, lower-cased. Use with `ESCAPE '!'`:
 * `!` behaves the same on MySQL and SQLite, unlike a backslash (MySQL treats it as a string escape).
 */
export const containsPattern = (text: string): string =>
  `%${text.toLowerCase().replace(/[!%_]/g, (char) => `!${char}`)}%`;

export const LIKE_ESCAPE = "ESCAPE '!'";
