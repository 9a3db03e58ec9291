import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { errorMessage } from '../../shared/error-text';
import { LruCache } from '../../shared/lru-cache';
import { EVIDENCE_HALF_LIFE_MS, UsageEvidence } from '../../agent/selection/usage-evidence';
import type { ToolVersionChange, ToolVersionListener } from '../../tools/tool-version-listener';
import { ToolUsageTermEntity } from './tool-usage-term.entity';

/** Owners whose evidence is kept in memory (the same bound as before it was stored). */
const CACHED_OWNERS = 1000;
/** How long an owner's loaded evidence is used before it is read again (other processes' learning). */
export const TOOL_USAGE_TTL_MS = 5_000;
const ROWS_PER_STATEMENT = 200;
/** Stored weights are scaled to this instant, so that adding one needs no read (see scaledWeight). */
const EPOCH_MS = Date.UTC(2026, 0, 1);

/** One learned call's weight as stored: 1 at `at`, scaled to the epoch (it halves with age when read). */
const scaledWeight = (at: number): number => 2 ** ((at - EPOCH_MS) / EVIDENCE_HALF_LIFE_MS);

interface LoadedOwner {
  evidence: UsageEvidence;
  loadedAt: number;
}

/**
 * Tool selection's learning from use, stored (table `tool_usage_terms`) so that it survives restarts and is
 * shared by every process on the database. An owner's evidence is read into memory once per TOOL_USAGE_TTL_MS
 * before a node ranks (ranking never waits on the database); what a call teaches is written in the
 * background, the terms of the calls learned together in one statement, as additions to scaled weights.
 * Bounds and decay are those of UsageEvidence; rows beyond them are deleted when an owner is read.
 */
@Injectable()
export class ToolUsageService implements ToolVersionListener, BeforeApplicationShutdown {
  private readonly owners = new LruCache<string, LoadedOwner>(CACHED_OWNERS);
  private readonly loading = new Map<string, Promise<UsageEvidence>>();
  private readonly logger = new Logger(ToolUsageService.name);
  /** Learned terms not written yet: owner → tool → term → scaled weight to add. */
  private pending = new Map<string, Map<string, Map<string, number>>>();
  private writing: Promise<void> = Promise.resolve();
  private scheduled = false;

  private readonly now = (): number => Date.now();

  constructor(@InjectRepository(ToolUsageTermEntity) private readonly terms: Repository<ToolUsageTermEntity>) {}

  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  /** The owner's evidence: read from the database when not read in the last TOOL_USAGE_TTL_MS. */
  async of(owner: string): Promise<UsageEvidence> {
    const cached = this.owners.get(owner);
    if (cached !== undefined && this.now() - cached.loadedAt < TOOL_USAGE_TTL_MS) return cached.evidence;
    let loading = this.loading.get(owner);
    if (loading === undefined) {
      loading = this.load(owner).finally(() => this.loading.delete(owner));
      this.loading.set(owner, loading);
    }
    return loading;
  }

  /** Writes what was learned and not written yet (tests, shutdown). */
  async flush(): Promise<void> {
    this.write();
    await this.writing;
  }

  /** Deletes an owner's evidence (the owner is gone, or asked to be forgotten). */
  async forgetOwner(owner: string): Promise<void> {
    await this.flush();
    await this.terms.delete({ ownerId: owner });
    this.owners.delete(owner);
  }

  /** A deleted tool's evidence goes, for every owner; a new version keeps it (the tool still does the same job). */
  async toolsChanged(changes: readonly ToolVersionChange[]): Promise<void> {
    const deleted = changes.filter((change) => change.version === null).map((change) => change.id);
    if (deleted.length === 0) return;
    await this.flush();
    await this.terms.delete({ toolKey: In(deleted) });
    this.owners.clear();
  }

  private async load(owner: string): Promise<UsageEvidence> {
    await this.flush();
    const loadedAt = this.now();
    let rows: Array<{ toolKey: string; term: string; weight: number | string }>;
    try {
      // Raw rows, oldest first (entities would cost more than the query: ~0.5 s for 12 800 rows under load).
      rows = await this.terms
        .createQueryBuilder('usage')
        .select(['usage.tool_key AS toolKey', 'usage.term AS term', 'usage.weight AS weight'])
        .where('usage.owner_id = :owner', { owner })
        .orderBy('usage.updated_at', 'ASC')
        .getRawMany();
    } catch (error) {
      // Selection ranks without what it cannot read now (and still stores what it learns).
      this.logger.warn(`Reading stored tool selection evidence failed: ${errorMessage(error)}`);
      rows = [];
    }
    const scale = scaledWeight(loadedAt);
    // Each tool moves to the end when a newer row of it comes: the tools end up least recently learned first.
    const tools = new Map<string, { terms: Map<string, number> }>();
    for (const row of rows) {
      const tool = tools.get(row.toolKey) ?? { terms: new Map<string, number>() };
      tools.delete(row.toolKey);
      tools.set(row.toolKey, tool);
      tool.terms.set(row.term, Number(row.weight) / scale);
    }
    const evidence = new UsageEvidence({
      now: this.now,
      onRecord: (tool, terms, at) => this.learned(owner, tool, terms, at),
    });
    // Least recently learned first: past the bound on tools, those go.
    for (const [tool, { terms }] of tools) evidence.load(tool, terms, loadedAt);
    this.owners.set(owner, { evidence, loadedAt });
    this.prune(owner, tools, evidence);
    return evidence;
  }

  /** Deletes in the background the rows the loaded evidence did not keep (bounds, decayed below a hundredth). */
  private prune(owner: string, stored: ReadonlyMap<string, { terms: Map<string, number> }>, kept: UsageEvidence): void {
    const keptTerms = new Map(kept.entries());
    const goneTools: string[] = [];
    const goneTerms: Array<[tool: string, terms: string[]]> = [];
    for (const [tool, { terms }] of stored) {
      const keep = keptTerms.get(tool);
      if (keep === undefined) goneTools.push(tool);
      else {
        const gone = [...terms.keys()].filter((term) => !keep.has(term));
        if (gone.length > 0) goneTerms.push([tool, gone]);
      }
    }
    if (goneTools.length === 0 && goneTerms.length === 0) return;
    this.writing = this.writing.then(async () => {
      try {
        for (let start = 0; start < goneTools.length; start += ROWS_PER_STATEMENT)
          await this.terms.delete({ ownerId: owner, toolKey: In(goneTools.slice(start, start + ROWS_PER_STATEMENT)) });
        for (const [tool, terms] of goneTerms)
          await this.terms.delete({ ownerId: owner, toolKey: tool, term: In(terms) });
      } catch (error) {
        this.logger.warn(`Pruning stored tool selection evidence failed: ${errorMessage(error)}`);
      }
    });
  }

  private learned(owner: string, tool: string, terms: readonly string[], at: number): void {
    let tools = this.pending.get(owner);
    if (tools === undefined) this.pending.set(owner, (tools = new Map<string, Map<string, number>>()));
    let weights = tools.get(tool);
    if (weights === undefined) tools.set(tool, (weights = new Map<string, number>()));
    const weight = scaledWeight(at);
    for (const term of terms) weights.set(term, (weights.get(term) ?? 0) + weight);
    if (!this.scheduled) {
      this.scheduled = true;
      // The calls one model answer made are learned together: one statement for all of them.
      setImmediate(() => this.write());
    }
  }

  private write(): void {
    this.scheduled = false;
    if (this.pending.size === 0) return;
    const pending = this.pending;
    this.pending = new Map();
    const updatedAt = new Date(this.now());
    const rows: Array<[owner: string, tool: string, term: string, weight: number]> = [];
    for (const [owner, tools] of pending)
      for (const [tool, weights] of tools) for (const [term, weight] of weights) rows.push([owner, tool, term, weight]);
    this.writing = this.writing.then(async () => {
      try {
        for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT)
          await this.upsert(rows.slice(start, start + ROWS_PER_STATEMENT), updatedAt);
      } catch (error) {
        this.logger.warn(`Storing tool selection evidence failed: ${errorMessage(error)}`);
      }
    });
  }

  /** One INSERT that adds each row's weight to the stored one. */
  private async upsert(rows: ReadonlyArray<[string, string, string, number]>, updatedAt: Date): Promise<void> {
    const mysql = this.terms.manager.connection.options.type === 'mysql';
    // better-sqlite3 binds no Date: the text TypeORM stores a SQLite datetime as.
    const at = mysql ? updatedAt : updatedAt.toISOString().replace('T', ' ').replace('Z', '');
    const values = rows.map(() => '(?, ?, ?, ?, ?)').join(', ');
    const conflict = mysql
      ? 'ON DUPLICATE KEY UPDATE weight = weight + VALUES(weight), updated_at = VALUES(updated_at)'
      : 'ON CONFLICT (owner_id, tool_key, term) DO UPDATE SET weight = weight + excluded.weight, updated_at = excluded.updated_at';
    await this.terms.query(
      `INSERT INTO tool_usage_terms (owner_id, tool_key, term, weight, updated_at) VALUES ${values} ${conflict}`,
      rows.flatMap((row) => [...row, at]),
    );
  }
}
