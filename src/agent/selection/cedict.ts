import { readFileSync } from 'node:fs';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const HAN_WORD = /^[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+$/u;
// Senses that say nothing about meaning: cross-references, surnames, classifiers, pronunciations. Tested on
// the sense as written and on what is left of it once notes in brackets and Chinese characters are taken out.
const EMPTY_SENSE =
  /^(?:(?:old |archaic |Japanese |Taiwan |ancient )?variant of|see(?: also)?\b|same as\b|surname\b|used in\b|used before\b|CL:|abbr\. (?:for|to)\b|also written\b|erhua variant|classifier\b|(?:Taiwan |also )?pr\.|name of\b|also called\b)/i;
/**
 * Senses of a word kept (CC-CEDICT lists an entry's commonest first; 更新 is "to update" only fifth, after "to
 * renew" and "to renovate").
 */
const SENSES = 6;
/** How many dictionary words must show a character's meaning as an affix before it is taken (集 set: 7). */
const AFFIX_EVIDENCE = 2;

/**
 * Compounds read per character and side, in dictionary order: enough to show its meanings (区 ends 964 of them,
 * 子 788), few enough that a character costs a few milliseconds once.
 */
const AFFIX_COMPOUNDS = 200;

/** Where a character stands in a compound: at its end (集 of 数据集) or at its start (多 of 多媒体). */
export type Affix = 'suffix' | 'prefix';

/**
 * The simplified Chinese words of CC-CEDICT and their English senses, read from the cc-cedict package's data
 * file (`data/all.js`: `[traditional, simplified, pinyin, english, …]` per entry). The file stays in memory as
 * bytes; a word's senses are decoded when first asked for. Proper names (capitalised pinyin) count only for
 * words that have no other entry (谷歌 Google, 意大利 Italy; not 后 "surname Hou").
 * Text in traditional characters is read through `simplified`.
 */
export class ChineseDictionary {
  private readonly text: Buffer;
  /** Per word, its first entry; per entry, the byte range of its English (JSON) and the word's next entry. */
  private readonly first = new Map<string, number>();
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private readonly next: number[] = [];
  /** Per traditional character, its one simplified form (while reading: null when it has several). */
  private readonly toSimplified = new Map<string, string | null>();
  /** Words that CC-CEDICT holds only as proper names. */
  private readonly names = new Set<string>();
  readonly longest: number;
  private readonly affixes = new Map<string, string[]>();
  /** The words of two characters or more by their last and by their first character (built on first need). */
  private compounds: CompoundIndex | undefined;

  constructor(file: string) {
    this.text = readFileSync(file);
    let longest = 1;
    const simplifiedCharacters = new Set<string>();
    const end = this.text.indexOf(']],"variantLookup"');
    for (const [traditional, simplified, englishStart, englishEnd, name] of entries(
      this.text,
      end < 0 ? this.text.length : end,
    )) {
      if (!HAN_WORD.test(simplified)) continue;
      if (name) {
        // A name counts only for a word that has no other entry, before or after it.
        if (this.first.has(simplified) && !this.names.has(simplified)) continue;
        this.names.add(simplified);
      } else if (this.names.delete(simplified)) this.first.delete(simplified);
      if (!name && traditional.length === 1 && simplified.length === 1) {
        const known = this.toSimplified.get(traditional);
        this.toSimplified.set(traditional, known === undefined || known === simplified ? simplified : null);
        simplifiedCharacters.add(simplified);
      }
      this.next.push(this.first.get(simplified) ?? -1);
      this.first.set(simplified, this.starts.length);
      this.starts.push(englishStart);
      this.ends.push(englishEnd);
      longest = Math.max(longest, simplified.length);
    }
    this.longest = longest;
    // A character that is some entry's simplified form is read as written (么 "what" is not 幺 "youngest").
    for (const [traditional, simplified] of this.toSimplified)
      if (simplified === null || simplified === traditional || simplifiedCharacters.has(traditional))
        this.toSimplified.delete(traditional);
  }

  has(word: string): boolean {
    return this.first.has(word);
  }

  /** Whether CC-CEDICT holds the word only as a proper name (里加 Riga, 谷歌 Google). */
  isName(word: string): boolean {
    return this.names.has(word);
  }

  /** The text with each traditional character that has one simplified form written in that form (獲取 获取). */
  simplified(text: string): string {
    if (!/[\u3400-\u9fff\uf900-\ufaff]/u.test(text)) return text;
    return text.replace(/[\u3400-\u9fff\uf900-\ufaff]/gu, (character) => this.toSimplified.get(character) ?? character);
  }

  /**
   * The English senses of a word without notes in brackets or cross-references: the first sense of each of its
   * entries (readings) in dictionary order, then the second of each, and so on (CC-CEDICT lists the commonest
   * sense of an entry first, but not the commonest entry first: 后 is "empress" before it is "after").
   */
  senses(word: string, limit = SENSES): string[] {
    const entries: string[][] = [];
    for (let entry = this.first.get(word) ?? -1; entry >= 0; entry = this.next[entry]) {
      const parsed = JSON.parse(this.text.toString('utf8', this.starts[entry], this.ends[entry])) as string | string[];
      const written = typeof parsed === 'string' ? parsed.split(/; ?/) : parsed;
      // A name's sense is the name, then what it is ("Google, Internet company and search engine").
      const senses = (this.names.has(word) ? written.map((sense) => sense.split(',')[0]) : written).flatMap(meaningful);
      if (senses.length > 0) entries.unshift(senses);
    }
    const senses: string[] = [];
    for (let position = 0; senses.length < limit && entries.some((senses) => position < senses.length); position++)
      for (const entry of entries) if (position < entry.length && senses.length < limit) senses.push(entry[position]);
    return senses;
  }

  /**
   * What a character means at the end (or the start) of a compound, read from the dictionary's own compounds:
   * of the words that are this character and another word, those whose sense is a sense of that word and one
   * English word more, apart or joined (字符集 "character set", 指令集 "instruction set", 数据集 "dataset": 集 is
   * "set", which none of its own senses says; 三项 "three items" and 十项 "ten items" say what 项 is; at the
   * start, 多媒体 "multimedia" and 多边 "multilateral": 多 is "multi"). Meanings shown by at least two such
   * words and at least once apart (a word, not a tail: percent + age), the most often shown first; none for a
   * character that is no affix (改, 按). Worked out on first need per character and side (2–5 ms, the first 200
   * compounds read) and kept.
   */
  affixMeanings(character: string, at: Affix): string[] {
    const key = at + character;
    const known = this.affixes.get(key);
    if (known !== undefined) return known;
    const counts = new Map<string, [number, number]>();
    let read = 0;
    for (const word of this.compoundsWith(character, at)) {
      const other = at === 'suffix' ? word.slice(0, -1) : word.slice(1);
      if (this.names.has(word) || this.names.has(other) || !this.first.has(other)) continue;
      if (++read > AFFIX_COMPOUNDS) break;
      const otherSenses = this.senses(other, Infinity).map(plainSense);
      const found = new Map<string, boolean>();
      for (const sense of this.senses(word, Infinity).map(plainSense))
        for (const otherSense of otherSenses) {
          if (otherSense.length < 2 || sense.length <= otherSense.length) continue;
          if (at === 'suffix' ? !sense.startsWith(otherSense) : !sense.endsWith(otherSense)) continue;
          const rest = at === 'suffix' ? sense.slice(otherSense.length) : sense.slice(0, -otherSense.length);
          const separator = at === 'suffix' ? rest.slice(0, 1) : rest.slice(-1);
          const apart = separator === ' ' || separator === '-';
          const meaning = apart
            ? at === 'suffix'
              ? rest.slice(1)
              : rest.slice(0, -1)
            : /^[a-z]+$/.test(otherSense)
              ? rest
              : '';
          if (/^[a-z]{3,}$/.test(meaning)) found.set(meaning, apart || found.get(meaning) === true);
        }
      for (const [meaning, apart] of found) {
        const [count, apartCount] = counts.get(meaning) ?? [0, 0];
        counts.set(meaning, [count + 1, apartCount + (apart ? 1 : 0)]);
      }
    }
    const meanings = [...counts]
      .filter(([, [count, apart]]) => count >= AFFIX_EVIDENCE && apart > 0)
      .map(([meaning, [count]]): [string, number] => [meaning, count])
      .sort((a, b) => b[1] - a[1])
      .map(([meaning]) => meaning);
    this.affixes.set(key, meanings);
    return meanings;
  }

  /** The words of two characters or more that end (or start) with a character, in dictionary order. */
  private compoundsWith(character: string, at: Affix): readonly string[] {
    this.compounds ??= new CompoundIndex(this.first.keys());
    return this.compounds.with(character, at);
  }
}

/** A sense as plain English words, or nothing when it says nothing about meaning. */
function meaningful(sense: string): string[] {
  if (EMPTY_SENSE.test(sense.trim())) return [];
  const plain = sense
    .replace(/\([^)]*\)|\[[^\]]*\]|[\u3400-\u9fff|]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return plain === '' || EMPTY_SENSE.test(plain) ? [] : [plain];
}

/**
 * Words of two characters or more by their last and by their first character: positions into one array of the
 * words, counting-sorted by character code (the words CC-CEDICT's filter keeps are in the basic plane).
 */
class CompoundIndex {
  private readonly words: string[] = [];
  private readonly order: Record<Affix, Uint32Array>;
  private readonly starts: Record<Affix, Uint32Array>;

  constructor(words: Iterable<string>) {
    for (const word of words) if (word.length > 1) this.words.push(word);
    const sort = (code: (word: string) => number): [Uint32Array, Uint32Array] => {
      const starts = new Uint32Array(0x10001);
      for (const word of this.words) starts[code(word) + 1]++;
      for (let index = 1; index < starts.length; index++) starts[index] += starts[index - 1];
      const next = starts.slice(0, 0x10000);
      const order = new Uint32Array(this.words.length);
      this.words.forEach((word, index) => (order[next[code(word)]++] = index));
      return [order, starts];
    };
    const [suffixOrder, suffixStarts] = sort((word) => word.charCodeAt(word.length - 1));
    const [prefixOrder, prefixStarts] = sort((word) => word.charCodeAt(0));
    this.order = { suffix: suffixOrder, prefix: prefixOrder };
    this.starts = { suffix: suffixStarts, prefix: prefixStarts };
  }

  with(character: string, at: Affix): string[] {
    if (character.length !== 1) return [];
    const code = character.charCodeAt(0);
    const positions = this.order[at].subarray(this.starts[at][code], this.starts[at][code + 1]);
    return Array.from(positions, (position) => this.words[position]);
  }
}

/** A sense in lower case without a leading "to " (of a verb). */
export const plainSense = (sense: string): string => sense.toLowerCase().replace(/^to /, '');

/**
 * [traditional (of a one-character entry; else empty), simplified, start and end of the English, whether the
 * pinyin is capitalised (a proper name)] of each entry.
 */
function* entries(text: Buffer, end: number): Generator<[string, string, number, number, boolean]> {
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
    // One character is 3 bytes of UTF-8 (4 outside the basic plane, which has no traditional form here).
    yield [
      simplified - 3 - start === 3 ? text.toString('utf8', start, simplified - 3) : '',
      text.toString('utf8', simplified, pinyin - 3),
      english,
      close,
      capitalised,
    ];
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
