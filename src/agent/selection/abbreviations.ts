import { tokenize, type TokenizeOptions } from './tokenize';

/** An abbreviation a text defines: its short form as a term (`ci`) and its long form's terms. */
export type Abbreviation = [short: string, long: readonly string[]];

// "configuration items (CIs)": up to eight words, then a parenthesised capitalised short form, plural or not.
const DEFINITION = /((?:[A-Za-z]{1,30}[\s-]{1,5}){1,8})\(([A-Z][A-Za-z]{1,7}?)s?\)/g;

/**
 * The abbreviations a text defines as "long form (SF)", where the initials of the long form's last words spell
 * the short form (Schwartz and Hearst's pattern, kept to word initials): "Customer Service Management (CSM)",
 * "configuration items (CIs)". A short form that is a stop word (`IT`) is left out.
 */
export function abbreviationsIn(text: string, options?: TokenizeOptions): Abbreviation[] {
  const found: Abbreviation[] = [];
  for (const [, before, short] of text.matchAll(DEFINITION)) {
    const words = before
      .trim()
      .split(/[\s-]+/)
      .slice(-short.length);
    if (
      words.length < short.length ||
      words
        .map((word) => word[0])
        .join('')
        .toLowerCase() !== short.toLowerCase()
    )
      continue;
    const [term] = tokenize(short, options);
    const long = tokenize(words.join(' '), options);
    if (term !== undefined && long.length > 1) found.push([term, long]);
  }
  return found;
}

/**
 * The abbreviations a set of tools defines, so that one tool's short form (`get_ci_actions`) meets a question's
 * long form ("configuration item") and back, although that tool never spells it out.
 */
export class AbbreviationTable {
  private readonly longForms = new Map<string, Array<readonly string[]>>();

  constructor(definitions: Iterable<Abbreviation>) {
    for (const [short, long] of definitions) {
      const known = this.longForms.get(short) ?? [];
      if (!known.some((other) => other.join(' ') === long.join(' '))) known.push(long);
      this.longForms.set(short, known);
    }
  }

  get size(): number {
    return this.longForms.size;
  }

  /** The long forms' terms of the short forms among `terms` (`ci`, or `cis` as its plural stems). */
  expand(terms: Iterable<string>): string[] {
    const expanded: string[] = [];
    for (const term of new Set(terms)) for (const long of this.longFormsOf(term)) expanded.push(...long);
    return expanded;
  }

  /** What a query's own terms add: the long forms of its short forms, the short forms of its long forms. */
  widen(terms: ReadonlySet<string>): string[] {
    const added = new Set<string>();
    for (const [short, longForms] of this.longForms)
      for (const long of longForms) if (long.every((term) => terms.has(term))) added.add(short);
    for (const term of this.expand(terms)) added.add(term);
    for (const term of terms) added.delete(term);
    return [...added];
  }

  private longFormsOf(term: string): ReadonlyArray<readonly string[]> {
    return this.longForms.get(term) ?? (term.endsWith('s') ? this.longForms.get(term.slice(0, -1)) : undefined) ?? [];
  }
}
