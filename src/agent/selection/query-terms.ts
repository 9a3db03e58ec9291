import { affixEnglish, besideWord } from './chinese-affixes';
import { CHINESE_FUNCTION_WORDS, chineseWords, glossaryEnglish } from './chinese-words';
import type { Lexicon } from './lexicon';
import type { Relation } from './wordnet';
import { cjkRuns, plainWords, synonymsOf, tokenize, type TokenizeOptions } from './tokenize';

/** How a query becomes weighted ranking terms: its own words weigh 1, what they bring in weighs less. */
export interface QueryOptions {
  tokenize?: TokenizeOptions;
  /** Of the synonyms of `vocabulary.ts`, relative to the word they stand for. */
  synonymWeight: number;
  /** WordNet and CC-CEDICT; undefined: the words as written (and the glossary) only. */
  lexicon?: Lexicon;
  /**
   * Of each English word of a CC-CEDICT sense of a Chinese word the glossary lacks, the same for each of its
   * senses: a tool scores the best, and the sense a tool's text says is often not the first (预订 "to place an
   * order; to book ahead").
   */
  chineseWeight: number;
  /** WordNet relations of the English that a Chinese word was bridged to, relative to that word's weight. */
  bridgedExpansion: number;
  /**
   * Of the first CC-CEDICT sense of a one-character word the glossary lacks (a character no longer word holds:
   * 湖 lake; their senses are many and broad); 0: not bridged.
   */
  singleCharacters: number;
  /**
   * Of what a one-character word the glossary lacks means at the end of a compound, when it follows a word (集
   * set, after 变更), or at the start of one, when a word follows it (多 multi, before 地点): see
   * ChineseDictionary.affixMeanings. Joined with that word's English (changeset), it weighs as a bridged sense.
   * 0: characters are not read as affixes.
   */
  affixes: number;
  /** Of the initials of a word's English and its affix's meaning (配置 configuration + 项 item: ci). */
  affixInitials: number;
  /** Of a WordNet relative of a query word, per relation (`compound`: two query words WordNet knows as one). */
  relations: Record<Relation | 'compound', number>;
}

const MIN_WORD = 3;
/**
 * Characters of a query read as affixes of the word beside them, the first ones: a character's affix meanings
 * take 5–20 ms to work out the first time (then they are kept), and a long pasted text must not pay that for
 * each of its characters.
 */
const AFFIX_READINGS = 8;

/**
 * A query as weighted ranking terms. `terms`: its own words (weight 1) and their synonyms, each counted once.
 * `groups`: what the lexicon brings in, one group per word it widens (the WordNet relatives of an English
 * word or of an adjacent pair WordNet knows as one, `barber shop`; the English senses of a Chinese word the
 * glossary lacks), of which a tool scores only its best term, so that a word with many relatives weighs
 * no more than one. A term keeps its largest weight within its map.
 */
export interface QueryTerms {
  terms: Map<string, number>;
  groups: Array<Map<string, number>>;
}

export function queryTerms(written: string, options: QueryOptions): QueryTerms {
  // Full-width Latin letters and digits (ＡＰＩ, typed with a Chinese or Japanese input method) read as ASCII, and
  // traditional characters as simplified, in which the glossary and CC-CEDICT's words are written.
  const normalised = written.normalize('NFKC');
  const query = options.lexicon?.chinese.simplified(normalised) ?? normalised;
  const terms = new Map<string, number>();
  for (const token of tokenize(query, options.tokenize)) terms.set(token, 1);
  const withSynonyms = (weights: Map<string, number>): Map<string, number> => {
    if (options.synonymWeight > 0)
      for (const [term, weight] of [...weights])
        for (const synonym of synonymsOf(term)) raise(weights, synonym, weight * options.synonymWeight);
    return weights;
  };
  withSynonyms(terms);
  const groups: Array<Map<string, number>> = [];
  const { lexicon } = options;
  if (lexicon === undefined) return { terms, groups };
  // A word said twice is widened once, as its own term counts once.
  const widened = new Set<string>();
  const group = (word: string, fill: (addText: (text: string, weight: number) => void) => void): void => {
    if (widened.has(word)) return;
    widened.add(word);
    const weights = new Map<string, number>();
    fill((text, weight) => {
      for (const token of tokenize(text, options.tokenize)) raise(weights, token, weight);
    });
    for (const term of terms.keys()) weights.delete(term);
    if (weights.size > 0) groups.push(withSynonyms(weights));
  };
  expandEnglish(lexicon, plainWords(query, options.tokenize?.splitIdentifiers), (word, expand) =>
    group(word, (addText) => expand((text, relation) => addText(text, options.relations[relation]))),
  );
  // Characters read as affixes: the first few of a query (each costs milliseconds the first time it is read).
  const affixCharacters = new Set<string>();
  for (const run of cjkRuns(query)) {
    const words = chineseWords(run, lexicon.chinese);
    words.forEach((word, position) => {
      if (glossaryEnglish(word) !== undefined) return;
      const single = word.length === 1;
      const grammatical = CHINESE_FUNCTION_WORDS.has(word);
      const readAsAffix =
        single &&
        options.affixes > 0 &&
        besideWord(words, position) &&
        (affixCharacters.has(word) || affixCharacters.size < AFFIX_READINGS);
      if (readAsAffix) {
        affixCharacters.add(word);
        // A character before or after a word may be its affix: 变更 + 集 (set), 多 + 地点 (multi), 可 + 预订.
        const affixed = affixEnglish(lexicon.chinese, words, position, {
          meaning: grammatical ? 0 : options.affixes,
          joined: options.chineseWeight,
          initials: options.affixInitials,
        });
        if (affixed.length > 0) {
          group(`${words[position - 1] ?? ''}${word}${words[position + 1] ?? ''}`, (addText) => {
            if (options.singleCharacters > 0 && !grammatical)
              addText(lexicon.chinese.senses(word)[0] ?? '', options.singleCharacters);
            for (const [text, weight] of affixed) addText(text, weight);
          });
          return;
        }
      }
      if (grammatical) return;
      // A character no longer word holds backs off to its first sense alone, low and not widened further.
      if (single && options.singleCharacters <= 0) return;
      const senses = lexicon.chinese.senses(word);
      group(word, (addText) =>
        (single ? senses.slice(0, 1) : senses).forEach((sense) => {
          const weight = single ? options.singleCharacters : options.chineseWeight;
          addText(sense, weight);
          if (options.bridgedExpansion > 0 && !single)
            expandEnglish(lexicon, plainWords(sense), (_, expand) =>
              expand((text, relation) =>
                addText(text, weight * options.bridgedExpansion * options.relations[relation]),
              ),
            );
        }),
      );
    });
  }
  return { terms, groups };
}

function raise(weights: Map<string, number>, term: string, weight: number): void {
  if (weight > (weights.get(term) ?? 0)) weights.set(term, weight);
}

type Expansion = (addRelated: (text: string, relation: Relation | 'compound') => void) => void;

/**
 * Calls `onWord` once per word worth widening and per adjacent pair WordNet knows as one (`barber_shop`), with
 * a function that lists its relatives (a pair: itself as `compound` first).
 */
function expandEnglish(
  lexicon: Lexicon,
  words: readonly string[],
  onWord: (word: string, expand: Expansion) => void,
): void {
  const { wordnet } = lexicon;
  const relativesOf =
    (word: string): Expansion =>
    (addRelated) => {
      for (const [related, relation] of wordnet.expand(word)) addRelated(related.replace(/_/g, ' '), relation);
    };
  for (let index = 0; index < words.length; index++) {
    const word = words[index];
    if (word.length >= MIN_WORD && !/\d/.test(word)) onWord(word, relativesOf(word));
    const next = words[index + 1];
    if (next === undefined) continue;
    for (const compound of [`${word}_${next}`, `${word}${next}`]) {
      if (!wordnet.knows(compound)) continue;
      onWord(compound, (addRelated) => {
        addRelated(compound.replace(/_/g, ' '), 'compound');
        relativesOf(compound)(addRelated);
      });
    }
  }
}
