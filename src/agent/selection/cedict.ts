import { readFileSync } from 'node:fs';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const HAN_WORD = /^[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+$/u;
// Senses that say nothing about meaning: cross-references, surnames, classifiers.
const EMPTY_SENSE =
  /^(?:(?:old |archaic |Japanese |Taiwan )?variant of|see |surname |used in |CL:|abbr\. for|also written|erhua variant)/i;
/** Senses of a word kept (CC-CEDICT lists the commonest first). */
const SENSES = 3;

/**
 * The simplified Chinese words of CC-CEDICT and their English senses, read from the cc-cedict package's data
 * file (`data/all.js`: `[traditional, simplified, pinyin, english, …]` per entry). The file stays in memory as
 * bytes; a word's senses are decoded when first asked for. Proper names (capitalised pinyin) are left out.
 */
export class ChineseDictionary {
  private readonly text: Buffer;
  /** Per word, its first entry; per entry, the byte range of its English (JSON) and the word's next entry. */
  private readonly first = new Map<string, number>();
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private readonly next: number[] = [];
  readonly longest: number;

  constructor(file: string) {
    this.text = readFileSync(file);
    let longest = 1;
    const end = this.text.indexOf(']],"variantLookup"');
    for (const [simplified, englishStart, englishEnd] of entries(this.text, end < 0 ? this.text.length : end)) {
      if (!HAN_WORD.test(simplified)) continue;
      this.next.push(this.first.get(simplified) ?? -1);
      this.first.set(simplified, this.starts.length);
      this.starts.push(englishStart);
      this.ends.push(englishEnd);
      longest = Math.max(longest, simplified.length);
    }
    this.longest = longest;
  }

  has(word: string): boolean {
    return this.first.has(word);
  }

  /** The English senses of a word, commonest first, without notes in brackets or cross-references. */
  senses(word: string): string[] {
    const entries: number[] = [];
    for (let entry = this.first.get(word) ?? -1; entry >= 0; entry = this.next[entry]) entries.unshift(entry);
    const senses: string[] = [];
    for (const entry of entries) {
      const parsed = JSON.parse(this.text.toString('utf8', this.starts[entry], this.ends[entry])) as string | string[];
      for (const sense of typeof parsed === 'string' ? parsed.split(/; ?/) : parsed) {
        const plain = sense.replace(/\([^)]*\)|\[[^\]]*\]|[\u3400-\u9fff|]+/gu, ' ').trim();
        if (plain !== '' && !EMPTY_SENSE.test(plain)) senses.push(plain);
      }
    }
    return senses.slice(0, SENSES);
  }
}

/** [simplified, start, end of the English] of each entry whose pinyin is not capitalised (a proper name). */
function* entries(text: Buffer, end: number): Generator<[string, number, number]> {
  const next = (from: number, marker: string): number => {
    const found = text.indexOf(marker, from);
    return found < 0 ? -1 : found + marker.length;
  };
  for (let start = next(0, '[["'); start >= 0 && start < end; start = next(start, '],["')) {
    const simplified = stringEnd(text, start) + 3;
    const pinyin = stringEnd(text, simplified) + 3;
    const english = stringEnd(text, pinyin) + 2;
    if (simplified < 3 || pinyin < 3 || english < 2) return;
    const close = text[english] === 0x5b ? arrayEnd(text, english) : stringEnd(text, english + 1) + 1;
    const capitalised = text[pinyin] >= 0x41 && text[pinyin] <= 0x5a;
    if (!capitalised) yield [text.toString('utf8', simplified, pinyin - 3), english, close];
    start = close;
  }
}

/** The position of the quote that closes the JSON string whose content starts at `from`. */
function stringEnd(text: Buffer, from: number): number {
  let position = text.indexOf(QUOTE, from);
  while (position > 0 && text[position - 1] === BACKSLASH) position = text.indexOf(QUOTE, position + 1);
  return position;
}

/** The position after the `]` that closes the JSON array of strings starting at `from`. */
function arrayEnd(text: Buffer, from: number): number {
  let position = from + 1;
  while (text[position] === QUOTE) {
    position = stringEnd(text, position + 1) + 1;
    if (text[position] === 0x2c) position++;
  }
  return position + 1;
}
