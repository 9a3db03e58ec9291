import { type ChineseDictionary, plainSense } from './cedict';
import { CHINESE_FUNCTION_WORDS, glossaryEnglish } from './chinese-words';
import { stem } from './tokenize';

/** Affix meanings of a character taken, the most often shown first. */
const AFFIX_MEANINGS = 2;
/** An English affix as CC-CEDICT writes it among a character's senses: 可 "-able", 子 "sub-", 者 "-er". */
const ENGLISH_AFFIX = /^(?:-[a-z]+|[a-z]+-)$/;

/** Weights of what a character read as an affix adds, below the 1 of the query's own words. */
export interface AffixWeights {
  /** Of the character's meaning as an affix (集 set); 0: only the English affixes among its senses count. */
  meaning: number;
  /** Of that meaning joined with the word's English (changeset), and of an English affix joined (reservable). */
  joined: number;
  /** Of the two initials (配置项 configuration item: ci). */
  initials: number;
}

/**
 * What the one-character word at `position` adds when it stands before or after a word, as that word's affix:
 * what it means at the end (or start) of CC-CEDICT's compounds (变更 + 集: set; 多 + 地点: multi; see
 * ChineseDictionary.affixMeanings), alone, joined with the word's English (changeset, multilocation) and as two
 * initials (ci); and the English affixes among its own senses joined with the word's English (可 "-able" +
 * 预订 reserve: reservable; 者 "-er"). Empty when it is no affix of a word beside it.
 */
export function affixEnglish(
  dictionary: ChineseDictionary,
  words: readonly string[],
  position: number,
  weights: AffixWeights,
): Array<[string, number]> {
  const word = words[position];
  const head = words[position - 1];
  const tail = words[position + 1];
  const added: Array<[string, number]> = [];
  for (const [other, at] of [
    [head, 'suffix'],
    [tail, 'prefix'],
  ] as const) {
    if (!content(other)) continue;
    const english = oneWordEnglish(dictionary, other);
    const join = (meaning: string, otherWord: string) => (at === 'suffix' ? otherWord + meaning : meaning + otherWord);
    // A function word (可 "can") is an affix only by the English affix among its senses (-able).
    const meanings = weights.meaning > 0 ? dictionary.affixMeanings(word, at).slice(0, AFFIX_MEANINGS) : [];
    for (const meaning of meanings) {
      added.push([meaning, weights.meaning]);
      for (const otherWord of english) {
        added.push([join(meaning, otherWord), weights.joined]);
        if (weights.initials > 0) added.push([join(meaning[0], otherWord[0]), weights.initials]);
      }
    }
    // An inflection (有 "-ed": planned) says the word again once stemmed.
    for (const affix of englishAffixes(dictionary, word))
      for (const otherWord of english) {
        const attached = attach(otherWord, affix);
        if (stem(attached) !== stem(otherWord)) added.push([attached, weights.joined]);
      }
  }
  return added;
}

/** Whether the word at `position` stands beside a word that is no function word (of which it may be an affix). */
export const besideWord = (words: readonly string[], position: number): boolean =>
  content(words[position - 1]) || content(words[position + 1]);

const content = (word: string | undefined): word is string =>
  word !== undefined && word.length > 1 && !CHINESE_FUNCTION_WORDS.has(word);

/** The English affixes among a character's senses (可: -able). */
const englishAffixes = (dictionary: ChineseDictionary, word: string): string[] =>
  dictionary
    .senses(word, Infinity)
    .flatMap((sense) => sense.split(/; ?/))
    .filter((sense) => ENGLISH_AFFIX.test(sense));

/** A word with an English affix: reserve + -able is reservable, un- + lock is unlock. */
function attach(word: string, affix: string): string {
  if (affix.endsWith('-')) return affix.slice(0, -1) + word;
  const suffix = affix.slice(1);
  return (/^[aeiouy]/.test(suffix) && word.endsWith('e') ? word.slice(0, -1) : word) + suffix;
}

/** The one-word English of a Chinese word, to join with an affix (变更 change + 集 set: changeset). */
function oneWordEnglish(dictionary: ChineseDictionary, word: string): string[] {
  const english = glossaryEnglish(word) ?? dictionary.senses(word);
  return english.map(plainSense).filter((english) => /^[a-z]+$/.test(english));
}
