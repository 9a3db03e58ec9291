import type { FunctionTool, JsonSchema } from '../../shared/tool-types';
import { AbbreviationTable, abbreviationsIn, type Abbreviation } from './abbreviations';
import { lexicon } from './lexicon';
import { queryTerms, type QueryOptions, type QueryTerms } from './query-terms';
import { groupSiblings, siblingFamilies } from './sibling-families';
import { plainWords, tokenize, type TokenizeOptions } from './tokenize';
import type { Relation } from './wordnet';

/** The fields a tool is ranked on, each tokenized once. */
export interface ToolDocument {
  name: string;
  fields: Record<DocumentField, string[]>;
  /** The abbreviations its description and parameter descriptions define ("configuration items (CIs)"). */
  abbreviations?: readonly Abbreviation[];
}

/** The tools that hold a term and the term's score in each. */
interface Posting {
  tools: number[];
  values: number[];
}

type DocumentField = 'name' | 'description' | 'params' | 'paramDescriptions' | 'nameRelatives';
/** `abbreviations`: the long forms of the short forms a tool says, as the whole set of tools defines them. */
type FieldName = DocumentField | 'abbreviations';

export interface ToolIndexOptions {
  /** Field weights; a field with weight 0 is left out. */
  weights?: Partial<Record<FieldName, number>>;
  tokenize?: TokenizeOptions;
  /** Add synonyms of the query words at this weight; 0: none. Default 0.4. */
  synonymWeight?: number;
  /**
   * How much a tool rises whose name the query says: its score × (1 + this × the share of its name words the
   * query holds, each at the query's weight for it). 0: none. Default 0.5.
   */
  nameCoverage?: number;
  /** Keep families of sibling tools together, ordered by their distinguishing words. Default false. */
  siblings?: boolean;
  /**
   * Widen queries with WordNet and CC-CEDICT (loaded on the first query), names with WordNet, and short forms
   * with the long forms the tools define (and back). Default true.
   */
  expand?: boolean;
  /** The weights of what the lexicon brings in; see DEFAULT_EXPANSION. */
  expansion?: Partial<Omit<QueryOptions, 'tokenize' | 'synonymWeight' | 'lexicon'>>;
}

/** Weights of what the lexicon adds to a query, below the 1 of the query's own words. */
export const DEFAULT_EXPANSION: Omit<QueryOptions, 'tokenize' | 'synonymWeight' | 'lexicon'> = {
  chineseWeight: 1,
  bridgedExpansion: 0.5,
  singleCharacters: 0.3,
  affixes: 0.5,
  affixInitials: 0.5,
  relations: { compound: 1, synonym: 0.3, derived: 0.3, hypernym: 0.2, grandHypernym: 0.1 },
};

/** See ToolIndexOptions.nameCoverage (tuned on half A of bench/tool-selection.bench.ts: 0.25–1). */
const DEFAULT_NAME_COVERAGE = 0.5;
// nameRelatives: tuned on half A of bench/tool-selection.bench.ts (0.15–1).
const DEFAULT_WEIGHTS: Record<FieldName, number> = {
  name: 3,
  description: 1,
  params: 0.8,
  paramDescriptions: 0.4,
  nameRelatives: 0.4,
  abbreviations: 0.4,
};
// Short name fields normalise less than long descriptions.
const LENGTH_NORMALISATION: Record<FieldName, number> = {
  name: 0.3,
  description: 0.75,
  params: 0.5,
  paramDescriptions: 0.75,
  nameRelatives: 0.5,
  // A long form is a fixed phrase, not a sign of a verbose tool.
  abbreviations: 0,
};
/** Of a short form a query's long form stands for, or the other way round (0.5 and 1 alike on half A). */
const ABBREVIATION_WEIGHT = 0.5;
const K1 = 1.2;
const MIN_NAME_WORD = 3;
const FIELD_NAMES = Object.keys(DEFAULT_WEIGHTS) as FieldName[];

/**
 * The text of a tool's fields: name, description, parameter names and parameter descriptions (nested too), and
 * the WordNet relatives of its name words (see nameRelatives).
 */
export function toolDocument(tool: FunctionTool, options: TokenizeOptions = {}): ToolDocument {
  const names: string[] = [];
  const descriptions: string[] = [];
  collectParameters(tool.function.parameters, names, descriptions, 0);
  return {
    name: tool.function.name,
    abbreviations: abbreviationsIn([tool.function.description ?? '', ...descriptions].join('\n'), options),
    fields: {
      name: tokenize(tool.function.name, options),
      description: tokenize(tool.function.description ?? '', options),
      params: tokenize(names.join(' '), options),
      paramDescriptions: tokenize(descriptions.join(' '), options),
      nameRelatives: nameRelatives(tool.function.name, options),
    },
  };
}

/** What a name word is widened with: the words of its synsets and the words derived from them. */
const NAME_RELATIONS: ReadonlySet<Relation> = new Set(['synonym', 'derived']);

/**
 * The WordNet synonyms and derivations of a tool's name words (`overlapping` → `lap`, `reservation` →
 * `reserve`): the tool's own summary in other words, so that a question meets it from the tool's side too
 * (the query's words are widened as well, see queryTerms). Empty without the lexicon.
 */
function nameRelatives(name: string, options: TokenizeOptions): string[] {
  const wordnet = lexicon()?.wordnet;
  if (wordnet === undefined) return [];
  const own = new Set(tokenize(name, options));
  const relatives = new Set<string>();
  for (const word of plainWords(name, options.splitIdentifiers)) {
    if (word.length < MIN_NAME_WORD || /\d/.test(word)) continue;
    for (const [related, relation] of wordnet.expand(word)) {
      if (!NAME_RELATIONS.has(relation)) continue;
      for (const token of tokenize(related.replace(/_/g, ' '), options)) if (!own.has(token)) relatives.add(token);
    }
  }
  return [...relatives];
}

function collectParameters(schema: JsonSchema, names: string[], descriptions: string[], depth: number): void {
  const properties = schema.properties;
  if (depth > 3 || typeof properties !== 'object' || properties === null) return;
  for (const [name, property] of Object.entries(properties as Record<string, JsonSchema>)) {
    names.push(name);
    if (typeof property?.description === 'string') descriptions.push(property.description);
    if (typeof property === 'object' && property !== null) collectParameters(property, names, descriptions, depth + 1);
  }
}

/**
 * BM25F over a set of tools: per-field term frequencies, length-normalised per field and weighted, summed
 * into one pseudo frequency per term and tool before saturation; an inverted index so a query touches only
 * the tools that share a word with it. Build it once per set of tool versions; `rank` is cheap.
 */
export class ToolIndex {
  /** Per term, the tools that hold it and its score in each (parallel arrays). */
  private readonly postings = new Map<string, Posting>();
  /** Per tool, the score of each of its terms (to score a sibling on the words that tell it apart). */
  private readonly forward: Array<Map<string, number>>;
  private readonly families: ReturnType<typeof siblingFamilies> | undefined;
  readonly names: readonly string[];
  private readonly positions: ReadonlyMap<string, number>;
  /** Every word of some tool's name, numbered; per tool, the numbers of its distinct name words. */
  private readonly nameVocabulary = new Map<string, number>();
  private readonly nameWords: readonly Int32Array[];
  private readonly abbreviations: AbbreviationTable;

  constructor(
    documents: readonly ToolDocument[],
    private readonly options: ToolIndexOptions = {},
  ) {
    this.names = documents.map((document) => document.name);
    this.positions = new Map(this.names.map((name, tool) => [name, tool]));
    this.nameWords = documents.map((document) =>
      Int32Array.from(new Set(document.fields.name), (word) => {
        const known = this.nameVocabulary.get(word);
        if (known !== undefined) return known;
        this.nameVocabulary.set(word, this.nameVocabulary.size);
        return this.nameVocabulary.size - 1;
      }),
    );
    const weights = { ...DEFAULT_WEIGHTS, ...options.weights };
    // Without the lexicon the query is not widened: neither are the names, nor the short forms.
    if (options.expand === false) weights.nameRelatives = weights.abbreviations = 0;
    this.abbreviations = new AbbreviationTable(
      weights.abbreviations > 0 ? documents.flatMap((document) => document.abbreviations ?? []) : [],
    );
    const tokensOf: Array<Record<FieldName, string[]>> = documents.map((document) => ({
      ...document.fields,
      abbreviations:
        this.abbreviations.size > 0
          ? this.abbreviations.expand([...document.fields.name, ...document.fields.description])
          : [],
    }));
    const fields = FIELD_NAMES.filter((field) => weights[field] > 0);
    const averages = Object.fromEntries(
      fields.map((field) => [
        field,
        Math.max(
          1,
          tokensOf.reduce((sum, document) => sum + document[field].length, 0) / Math.max(1, documents.length),
        ),
      ]),
    ) as Record<FieldName, number>;
    const frequencies = tokensOf.map((tokensByField) => {
      const pseudo = new Map<string, number>();
      for (const field of fields) {
        const tokens = tokensByField[field];
        const b = LENGTH_NORMALISATION[field];
        const norm = 1 - b + (b * tokens.length) / averages[field];
        for (const token of tokens) pseudo.set(token, (pseudo.get(token) ?? 0) + weights[field] / norm);
      }
      return pseudo;
    });
    const total = documents.length;
    const containing = new Map<string, number>();
    for (const pseudo of frequencies)
      for (const token of pseudo.keys()) containing.set(token, (containing.get(token) ?? 0) + 1);
    // Only sibling families read a tool's own terms back.
    this.forward = options.siblings === true ? frequencies.map(() => new Map<string, number>()) : [];
    frequencies.forEach((pseudo, tool) => {
      for (const [token, frequency] of pseudo) {
        const n = containing.get(token) ?? 0;
        const idf = Math.log(1 + (total - n + 0.5) / (n + 0.5));
        const value = (idf * frequency * (K1 + 1)) / (frequency + K1);
        let list = this.postings.get(token);
        if (list === undefined) this.postings.set(token, (list = { tools: [], values: [] }));
        list.tools.push(tool);
        list.values.push(value);
        this.forward[tool]?.set(token, value);
      }
    });
    this.families = options.siblings === true ? siblingFamilies(documents) : undefined;
  }

  /**
   * Scores of every tool that shares a word with the query, best first (ties by position); `learned` adds a
   * score per tool name (what the owner's runs taught, see UsageEvidence).
   */
  rank(
    text: string,
    limit = Number.POSITIVE_INFINITY,
    learned?: ReadonlyMap<string, number>,
  ): Array<{ name: string; score: number }> {
    const query = queryTerms(text, {
      ...DEFAULT_EXPANSION,
      ...this.options.expansion,
      tokenize: this.options.tokenize,
      synonymWeight: this.options.synonymWeight ?? 0.4,
      lexicon: this.options.expand === false ? undefined : lexicon(),
    });
    if (this.abbreviations.size > 0) {
      const own = new Set([...query.terms].filter(([, weight]) => weight >= 1).map(([term]) => term));
      for (const term of this.abbreviations.widen(own))
        if ((query.terms.get(term) ?? 0) < ABBREVIATION_WEIGHT) query.terms.set(term, ABBREVIATION_WEIGHT);
    }
    const scores = this.lexicalScores(query);
    if (learned !== undefined && learned.size > 0) {
      for (const [name, value] of learned) {
        const tool = this.positions.get(name);
        if (tool !== undefined) scores.set(tool, (scores.get(tool) ?? 0) + value);
      }
    }
    this.raiseNamed(scores, query);
    const ranked = [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    const families = this.families;
    return (
      families === undefined
        ? ranked
        : groupSiblings(
            ranked,
            families.familyOf,
            (tool) => this.distinctScore(tool, families.shared[tool], query),
            limit,
          )
    )
      .slice(0, limit)
      .map(([tool, score]) => ({ name: this.names[tool], score }));
  }

  /**
   * Each tool's sum of its query terms' scores and, per group, of its best term's; over typed arrays, as a
   * query's groups may touch most tools many times. Tools in the order they were first touched.
   */
  private lexicalScores(query: QueryTerms): Map<number, number> {
    const count = this.names.length;
    const sums = new Float64Array(count);
    const touched: number[] = [];
    const seen = new Uint8Array(count);
    const touch = (tool: number): void => {
      if (seen[tool] === 0) {
        seen[tool] = 1;
        touched.push(tool);
      }
    };
    for (const [token, weight] of query.terms) {
      const posting = this.postings.get(token);
      if (posting === undefined) continue;
      const { tools, values } = posting;
      for (let index = 0; index < tools.length; index++) {
        touch(tools[index]);
        sums[tools[index]] += weight * values[index];
      }
    }
    const best = new Float64Array(count);
    const inGroup = new Uint8Array(count);
    const members: number[] = [];
    for (const group of query.groups) {
      for (const [token, weight] of group) {
        const posting = this.postings.get(token);
        if (posting === undefined) continue;
        const { tools, values } = posting;
        for (let index = 0; index < tools.length; index++) {
          const tool = tools[index];
          if (inGroup[tool] === 0) {
            inGroup[tool] = 1;
            members.push(tool);
          }
          best[tool] = Math.max(best[tool], weight * values[index]);
        }
      }
      for (const tool of members) {
        touch(tool);
        sums[tool] += best[tool];
        best[tool] = 0;
        inGroup[tool] = 0;
      }
      members.length = 0;
    }
    return new Map(touched.map((tool) => [tool, sums[tool]]));
  }

  /**
   * Names are a tool's shortest summary: a tool whose name words the query holds (`delete_record_from_table`
   * for "remove a record from the table") rises above tools that share as many rare words elsewhere.
   */
  private raiseNamed(scores: Map<number, number>, query: QueryTerms): void {
    const share = this.options.nameCoverage ?? DEFAULT_NAME_COVERAGE;
    if (share <= 0) return;
    const weights = new Float64Array(this.nameVocabulary.size);
    for (const map of [query.terms, ...query.groups])
      for (const [term, weight] of map) {
        const word = this.nameVocabulary.get(term);
        if (word !== undefined && weight > weights[word]) weights[word] = weight;
      }
    for (const [tool, score] of scores) {
      const words = this.nameWords[tool];
      if (words.length === 0) continue;
      let held = 0;
      for (const word of words) held += weights[word];
      scores.set(tool, score * (1 + (share * held) / words.length));
    }
  }

  /** The score of a tool on the query terms its family does not share. */
  private distinctScore(tool: number, shared: ReadonlySet<string>, query: QueryTerms): number {
    const values = this.forward[tool];
    let score = 0;
    for (const [term, weight] of query.terms) if (!shared.has(term)) score += weight * (values.get(term) ?? 0);
    for (const group of query.groups) {
      let best = 0;
      for (const [term, weight] of group)
        if (!shared.has(term)) best = Math.max(best, weight * (values.get(term) ?? 0));
      score += best;
    }
    return score;
  }
}
