import type { FunctionTool, JsonSchema } from '../../shared/tool-types';
import { synonymsOf, tokenize, type TokenizeOptions } from './tokenize';

/** The fields a tool is ranked on, each tokenized once. */
export interface ToolDocument {
  name: string;
  fields: Record<FieldName, string[]>;
}

type FieldName = 'name' | 'description' | 'params' | 'paramDescriptions';

export interface ToolIndexOptions {
  /** Field weights; a field with weight 0 is left out. */
  weights?: Partial<Record<FieldName, number>>;
  tokenize?: TokenizeOptions;
  /** Add synonyms of the query words at this weight; 0: none. Default 0.4. */
  synonymWeight?: number;
}

const DEFAULT_WEIGHTS: Record<FieldName, number> = { name: 3, description: 1, params: 0.8, paramDescriptions: 0.4 };
// Short name fields normalise less than long descriptions.
const LENGTH_NORMALISATION: Record<FieldName, number> = {
  name: 0.3,
  description: 0.75,
  params: 0.5,
  paramDescriptions: 0.75,
};
const K1 = 1.2;
const FIELD_NAMES = Object.keys(DEFAULT_WEIGHTS) as FieldName[];

/** The text of a tool's fields: name, description, parameter names and parameter descriptions (nested too). */
export function toolDocument(tool: FunctionTool, options: TokenizeOptions = {}): ToolDocument {
  const names: string[] = [];
  const descriptions: string[] = [];
  collectParameters(tool.function.parameters, names, descriptions, 0);
  return {
    name: tool.function.name,
    fields: {
      name: tokenize(tool.function.name, options),
      description: tokenize(tool.function.description ?? '', options),
      params: tokenize(names.join(' '), options),
      paramDescriptions: tokenize(descriptions.join(' '), options),
    },
  };
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
  private readonly postings = new Map<string, Array<[tool: number, weight: number]>>();
  private readonly synonymWeight: number;
  readonly names: readonly string[];

  constructor(
    documents: readonly ToolDocument[],
    private readonly options: ToolIndexOptions = {},
  ) {
    this.names = documents.map((document) => document.name);
    this.synonymWeight = options.synonymWeight ?? 0.4;
    const weights = { ...DEFAULT_WEIGHTS, ...options.weights };
    const fields = FIELD_NAMES.filter((field) => weights[field] > 0);
    const averages = Object.fromEntries(
      fields.map((field) => [
        field,
        Math.max(
          1,
          documents.reduce((sum, document) => sum + document.fields[field].length, 0) / Math.max(1, documents.length),
        ),
      ]),
    ) as Record<FieldName, number>;
    const frequencies = documents.map((document) => {
      const pseudo = new Map<string, number>();
      for (const field of fields) {
        const tokens = document.fields[field];
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
    frequencies.forEach((pseudo, tool) => {
      for (const [token, frequency] of pseudo) {
        const n = containing.get(token) ?? 0;
        const idf = Math.log(1 + (total - n + 0.5) / (n + 0.5));
        const list = this.postings.get(token) ?? [];
        list.push([tool, (idf * frequency * (K1 + 1)) / (frequency + K1)]);
        this.postings.set(token, list);
      }
    });
  }

  /** Scores of every tool that shares a word with the query, best first (ties by position). */
  rank(query: string, limit = Number.POSITIVE_INFINITY): Array<{ name: string; score: number }> {
    const weights = new Map<string, number>();
    for (const token of tokenize(query, this.options.tokenize)) {
      weights.set(token, Math.max(weights.get(token) ?? 0, 1));
      if (this.synonymWeight <= 0) continue;
      for (const synonym of synonymsOf(token)) {
        weights.set(synonym, Math.max(weights.get(synonym) ?? 0, this.synonymWeight));
      }
    }
    const scores = new Map<number, number>();
    for (const [token, weight] of weights) {
      for (const [tool, value] of this.postings.get(token) ?? [])
        scores.set(tool, (scores.get(tool) ?? 0) + weight * value);
    }
    return [...scores]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, limit)
      .map(([tool, score]) => ({ name: this.names[tool], score }));
  }
}
