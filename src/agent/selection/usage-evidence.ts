import { LruCache } from '../../shared/lru-cache';
import { tokenize } from './tokenize';

export interface UsageEvidenceOptions {
  /** Terms kept per tool; past it, the weakest go. */
  termsPerTool?: number;
  /** Tools kept; past it, the one learned about longest ago goes. */
  tools?: number;
  /** Evidence halves in this long. */
  halfLifeMs?: number;
  now?: () => number;
  /** Told each learned call's terms (after `record` counted them), e.g. to store them. */
  onRecord?: (tool: string, terms: readonly string[], at: number) => void;
}

/** Evidence halves in this long unless told otherwise. */
export const EVIDENCE_HALF_LIFE_MS = 30 * 86_400_000;

/** Terms of one task that are learned: the first this many distinct ones. */
const TERMS_PER_TASK = 32;
const LONGEST_TERM = 24;
/** A term decayed below this weight is forgotten. */
const LIGHTEST_WEIGHT = 0.01;

interface ToolEvidence {
  terms: Map<string, number>;
  /** When `terms` weights were last brought to the present. */
  at: number;
}

/**
 * What one owner's runs taught about which words lead to which tool: when a model called a tool that the
 * selection offered (or search_tools found), the terms of the task become evidence for that tool. Terms only
 * (stemmed words; no digits, email addresses or URLs), never the task's text; bounded per tool and in
 * tools; halved every `halfLifeMs`. A tool scores only with terms recorded for it: text it was never called
 * for cannot promote it.
 */
export class UsageEvidence {
  private readonly tools: LruCache<string, ToolEvidence>;
  private readonly termsPerTool: number;
  private readonly halfLifeMs: number;
  private readonly now: () => number;
  private readonly onRecord: UsageEvidenceOptions['onRecord'];

  constructor(options: UsageEvidenceOptions = {}) {
    this.tools = new LruCache(options.tools ?? 2000);
    this.termsPerTool = options.termsPerTool ?? 64;
    this.halfLifeMs = options.halfLifeMs ?? EVIDENCE_HALF_LIFE_MS;
    this.now = options.now ?? Date.now;
    this.onRecord = options.onRecord;
  }

  /** The terms a task is learned as: no email addresses or URLs, no term with a digit. */
  static termsOf(task: string): string[] {
    const terms = tokenize(task.replace(/\S+@\S+|\w+:\/\/\S+/g, ' ')).filter(
      (term) => !/\d/.test(term) && term.length > 1 && term.length <= LONGEST_TERM,
    );
    return [...new Set(terms)].slice(0, TERMS_PER_TASK);
  }

  /** A call of `tool` for `task`: each of the task's terms weighs one more for the tool. */
  record(task: string, tool: string): void {
    const evidence = this.current(tool) ?? { terms: new Map<string, number>(), at: this.now() };
    const terms = UsageEvidence.termsOf(task);
    for (const term of terms) evidence.terms.set(term, (evidence.terms.get(term) ?? 0) + 1);
    this.keep(tool, evidence);
    if (terms.length > 0) this.onRecord?.(tool, terms, evidence.at);
  }

  /** Sets a tool's evidence as learned elsewhere (a store): term weights as of `at`, bounded as `record` bounds them. */
  load(tool: string, terms: ReadonlyMap<string, number>, at = this.now()): void {
    const kept = [...terms].filter(([, weight]) => weight >= LIGHTEST_WEIGHT);
    if (kept.length > 0) this.keep(tool, { terms: new Map(kept), at });
  }

  /** The tools with evidence, and each one's terms with their weights now. */
  entries(): Array<[tool: string, terms: ReadonlyMap<string, number>]> {
    return [...this.tools.keys()].flatMap((tool) => {
      const evidence = this.current(tool, false);
      return evidence === undefined ? [] : [[tool, new Map(evidence.terms)] as [string, ReadonlyMap<string, number>]];
    });
  }

  private keep(tool: string, evidence: ToolEvidence): void {
    if (evidence.terms.size > this.termsPerTool) {
      const kept = [...evidence.terms].sort((a, b) => b[1] - a[1]).slice(0, this.termsPerTool);
      evidence.terms = new Map(kept);
    }
    this.tools.set(tool, evidence);
  }

  /**
   * Per tool with evidence for the query's terms: the share of its evidence those terms hold, each term weighed
   * by how few tools it leads to (a term learned for every tool tells nothing), in [0, about 8].
   */
  scores(query: string): Map<string, number> {
    const terms = new Set(tokenize(query));
    const scores = new Map<string, number>();
    if (this.tools.size === 0 || terms.size === 0) return scores;
    const leadingTo = new Map<string, number>();
    const matched: Array<[tool: string, evidence: ToolEvidence]> = [];
    for (const tool of [...this.tools.keys()]) {
      const evidence = this.current(tool, false);
      if (evidence === undefined) continue;
      let any = false;
      for (const term of terms)
        if (evidence.terms.has(term)) {
          leadingTo.set(term, (leadingTo.get(term) ?? 0) + 1);
          any = true;
        }
      if (any) matched.push([tool, evidence]);
    }
    for (const [tool, evidence] of matched) {
      let total = 0;
      for (const weight of evidence.terms.values()) total += weight;
      let score = 0;
      for (const term of terms) {
        const weight = evidence.terms.get(term);
        if (weight !== undefined)
          score += (weight / total) * Math.log(1 + this.tools.size / (leadingTo.get(term) ?? 1)) * TERMS_PER_TASK;
      }
      scores.set(tool, Math.min(score, 8));
    }
    return scores;
  }

  /** Forgets everything (the switch turned off, or an owner deleted). */
  clear(): void {
    this.tools.clear();
  }

  /** A tool's evidence, decayed to now; terms that fell below a hundredth are dropped. */
  private current(tool: string, touch = true): ToolEvidence | undefined {
    const evidence = touch ? this.tools.get(tool) : this.tools.peek(tool);
    if (evidence === undefined) return undefined;
    const now = this.now();
    const factor = 0.5 ** ((now - evidence.at) / this.halfLifeMs);
    if (factor < 1) {
      for (const [term, weight] of evidence.terms) {
        if (weight * factor < LIGHTEST_WEIGHT) evidence.terms.delete(term);
        else evidence.terms.set(term, weight * factor);
      }
      evidence.at = now;
    }
    return evidence;
  }
}

/** Where each owner's (API user's) evidence comes from; a store may read it first. */
export interface OwnerEvidenceSource {
  of(owner: string): UsageEvidence | Promise<UsageEvidence>;
}

/** The evidence of each owner (API user), kept in this process: the least recently used owners are dropped. */
export class OwnerEvidence implements OwnerEvidenceSource {
  private readonly owners: LruCache<string, UsageEvidence>;

  constructor(
    owners = 1000,
    private readonly options: UsageEvidenceOptions = {},
  ) {
    this.owners = new LruCache(owners);
  }

  of(owner: string): UsageEvidence {
    let evidence = this.owners.get(owner);
    if (evidence === undefined) this.owners.set(owner, (evidence = new UsageEvidence(this.options)));
    return evidence;
  }
}
