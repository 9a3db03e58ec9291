import type { FunctionTool } from '../../shared/tool-types';

/** Characters of a tool's text that are embedded: its name in words and its description. */
const EMBEDDED_CHARS = 1000;

export interface RankedTool {
  name: string;
  score: number;
}

/** How the lexical and the embedding ranking are combined. */
export type Fusion = { kind: 'weighted'; lexicalWeight: number } | { kind: 'rrf'; k: number };

/** Chosen on half A of the tool-selection bench and confirmed on half B (see bench/tool-selection.bench.ts). */
export const DEFAULT_FUSION: Fusion = { kind: 'weighted', lexicalWeight: 0.6 };

/** The text embedded for a tool: `get_current_weather` as words, then its description. */
export function embeddingText(tool: FunctionTool): string {
  const words = tool.function.name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .trim();
  const description = tool.function.description?.trim() ?? '';
  return (description === '' ? words : `${words}: ${description}`).slice(0, EMBEDDED_CHARS);
}

/** The vector scaled to length 1 (so a dot product is the cosine); a zero vector stays zero. */
export function unitVector(values: ArrayLike<number>): Float32Array {
  const vector = Float32Array.from(values);
  let sum = 0;
  for (const value of vector) sum += value * value;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let index = 0; index < vector.length; index++) vector[index] /= norm;
  return vector;
}

/** Cosine of the query with every tool (unit vectors of one length); a tool of another length scores 0. */
export function similarities(tools: readonly Float32Array[], query: Float32Array): Float32Array {
  const scores = new Float32Array(tools.length);
  tools.forEach((vector, tool) => {
    if (vector.length !== query.length) return;
    let dot = 0;
    for (let index = 0; index < vector.length; index++) dot += vector[index] * query[index];
    scores[tool] = dot;
  });
  return scores;
}

/**
 * The lexical ranking (only tools sharing a word with the query) and the cosine of every tool combined:
 * a weighted sum of the lexical score over its best and the cosine min-max scaled over the pool, or
 * reciprocal-rank fusion. Best first, ties by position.
 */
export function fuseRankings(
  names: readonly string[],
  lexical: readonly RankedTool[],
  cosines: Float32Array,
  limit: number,
  fusion: Fusion = DEFAULT_FUSION,
): RankedTool[] {
  const position = new Map(names.map((name, index) => [name, index]));
  const scores = new Float64Array(names.length);
  if (fusion.kind === 'weighted') {
    const best = lexical[0]?.score ?? 0;
    let low = Number.POSITIVE_INFINITY;
    let high = Number.NEGATIVE_INFINITY;
    for (const cosine of cosines) {
      low = Math.min(low, cosine);
      high = Math.max(high, cosine);
    }
    const spread = high - low;
    cosines.forEach((cosine, tool) => {
      scores[tool] = (1 - fusion.lexicalWeight) * (spread > 0 ? (cosine - low) / spread : 0);
    });
    if (best > 0) {
      for (const { name, score } of lexical) scores[position.get(name) ?? 0] += (fusion.lexicalWeight * score) / best;
    }
  } else {
    lexical.forEach(({ name }, rank) => (scores[position.get(name) ?? 0] += 1 / (fusion.k + rank + 1)));
    const bySimilarity = [...cosines.keys()].sort((a, b) => cosines[b] - cosines[a] || a - b);
    bySimilarity.forEach((tool, rank) => (scores[tool] += 1 / (fusion.k + rank + 1)));
  }
  return [...scores.keys()]
    .sort((a, b) => scores[b] - scores[a] || a - b)
    .slice(0, limit)
    .map((tool) => ({ name: names[tool], score: scores[tool] }));
}
