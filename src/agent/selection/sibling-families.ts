/** What a family is found by: a tool's name and description words. */
interface SiblingWords {
  fields: { name: readonly string[]; description: readonly string[] };
}

/** Tools whose name and description words overlap this much (Jaccard) are siblings: one API's family. */
export const SIBLING_OVERLAP = 0.5;
/** A sibling joins the family's best-ranked member in the offer when it scores at least this share of it. */
export const SIBLING_SCORE_SHARE = 0.9;

/**
 * Families of sibling tools: connected groups of tools whose name and description words overlap by at least
 * `overlap`. Returns, per tool, the words its family shares (empty when it has no sibling) and the family's
 * id (its first tool's position).
 */
export function siblingFamilies(
  documents: readonly SiblingWords[],
  overlap = SIBLING_OVERLAP,
): { familyOf: Int32Array; shared: Array<ReadonlySet<string>> } {
  const words = documents.map((document) => new Set([...document.fields.name, ...document.fields.description]));
  const parent = Int32Array.from(documents, (_, index) => index);
  const root = (tool: number): number => {
    while (parent[tool] !== tool) tool = parent[tool] = parent[parent[tool]];
    return tool;
  };
  // Only tools that share a name word can be siblings: compare those pairs, not all.
  const byNameWord = new Map<string, number[]>();
  documents.forEach((document, tool) => {
    for (const word of new Set(document.fields.name)) {
      const tools = byNameWord.get(word);
      if (tools === undefined) byNameWord.set(word, [tool]);
      else tools.push(tool);
    }
  });
  const compared = new Set<number>();
  for (const tools of byNameWord.values()) {
    if (tools.length > 200) continue;
    for (let i = 0; i < tools.length; i++)
      for (let j = i + 1; j < tools.length; j++) {
        const [a, b] = [tools[i], tools[j]];
        const pair = a * documents.length + b;
        if (compared.has(pair) || root(a) === root(b)) continue;
        compared.add(pair);
        if (jaccard(words[a], words[b]) >= overlap) parent[root(a)] = root(b);
      }
  }
  const familyOf = Int32Array.from(documents, (_, tool) => root(tool));
  const members = new Map<number, number[]>();
  familyOf.forEach((family, tool) => {
    const tools = members.get(family);
    if (tools === undefined) members.set(family, [tool]);
    else tools.push(tool);
  });
  const shared: Array<ReadonlySet<string>> = documents.map(() => new Set<string>());
  for (const tools of members.values()) {
    if (tools.length < 2) continue;
    const common = new Set([...words[tools[0]]].filter((word) => tools.every((tool) => words[tool].has(word))));
    for (const tool of tools) shared[tool] = common;
  }
  return { familyOf, shared };
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let both = 0;
  for (const word of a) if (b.has(word)) both++;
  return both / Math.max(1, a.size + b.size - both);
}

/**
 * A ranking with each family kept together: where a family's best member ranks, its siblings that score at
 * least `share` of it follow, ordered by `distinct` (the score of the query words the family does not share),
 * then by score; the first `limit` of them.
 */
export function groupSiblings(
  ranked: ReadonlyArray<[tool: number, score: number]>,
  familyOf: Int32Array,
  distinct: (tool: number) => number,
  limit: number,
  share = SIBLING_SCORE_SHARE,
): Array<[tool: number, score: number]> {
  const placed = new Set<number>();
  const byFamily = new Map<number, Array<[number, number]>>();
  for (const entry of ranked) {
    const members = byFamily.get(familyOf[entry[0]]);
    if (members === undefined) byFamily.set(familyOf[entry[0]], [entry]);
    else members.push(entry);
  }
  const result: Array<[number, number]> = [];
  for (const entry of ranked) {
    if (result.length >= limit) break;
    if (placed.has(entry[0])) continue;
    const family = byFamily.get(familyOf[entry[0]]) ?? [entry];
    const together = family.filter(([tool, score]) => !placed.has(tool) && score >= entry[1] * share);
    const order = new Map(together.map(([tool]) => [tool, distinct(tool)]));
    together.sort((a, b) => order.get(b[0])! - order.get(a[0])! || b[1] - a[1]);
    for (const member of together) {
      placed.add(member[0]);
      result.push(member);
    }
  }
  return result;
}
