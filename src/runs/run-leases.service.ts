import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { performance } from 'node:perf_hooks';
import { In, IsNull, LessThan, MoreThan, Not, Repository } from 'typeorm';
import { RunEntity, type RunStatus } from './run.entity';

/** How often a process measures again how far its clock is from the database's. */
const CLOCK_CHECK_MS = 60_000;

/** Statuses a worker may take a run in: the executor decides what a waiting run does (it may have been approved). */
const TAKEABLE: RunStatus[] = ['queued', 'running', 'waiting'];
/** Statuses in which a run needs an owner: a waiting run waits on a person, not on a process. */
const UNFINISHED: RunStatus[] = ['queued', 'running'];

/**
 * Who executes a run in queue mode, held in the database (the truth; Redis only carries the queue):
 * every change is a conditional UPDATE, so two workers never both hold one run. Lease times are written
 * and compared on the database server's clock (each process measures its offset to it), so a replica
 * whose clock runs late does not see a live lease as expired and take a run over from a living worker.
 */
@Injectable()
export class RunLeasesService {
  private clockOffsetMs = 0;
  private clockCheckedAt = -Infinity;
  private clockCheck: Promise<void> | null = null;

  constructor(@InjectRepository(RunEntity) private readonly runs: Repository<RunEntity>) {}

  /** Takes the run for `owner` when nobody holds a live lease on it and it has not ended; true when taken. */
  async acquire(runId: string, owner: string, leaseMs: number): Promise<boolean> {
    const now = await this.now();
    const result = await this.runs
      .createQueryBuilder()
      .update(RunEntity)
      .set({ leaseOwner: owner, leaseExpiresAt: new Date(now.getTime() + leaseMs) })
      .where('id = :runId', { runId })
      .andWhere('status IN (:...statuses)', { statuses: TAKEABLE })
      .andWhere('(lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at < :now)', { now })
      .execute();
    return result.affected === 1;
  }

  /**
   * Takes a run that never started for `owner` and marks it running, started at `startedAt`, in one statement:
   * true when it was still `queued`, never started, and nobody held a live lease on it (then the caller executes
   * it from the copy it has, as new); false otherwise (take it with `acquire`, and read it).
   */
  async acquireFresh(runId: string, owner: string, leaseMs: number, startedAt: Date): Promise<boolean> {
    const now = await this.now();
    const result = await this.runs
      .createQueryBuilder()
      .update(RunEntity)
      .set({ leaseOwner: owner, leaseExpiresAt: new Date(now.getTime() + leaseMs), status: 'running', startedAt })
      .where('id = :runId', { runId })
      .andWhere("status = 'queued' AND started_at IS NULL")
      .andWhere('(lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at < :now)', { now })
      .execute();
    return result.affected === 1;
  }

  /**
   * Extends, in one statement, the leases `owner` still holds on `runIds` of runs that have not ended or been
   * cancelled; returns the runs whose lease it no longer held, each with its status (null: no such run).
   */
  async renewAll(
    runIds: readonly string[],
    owner: string,
    leaseMs: number,
  ): Promise<Array<{ runId: string; status: RunStatus | null }>> {
    if (runIds.length === 0) return [];
    const held = { id: In([...runIds]), leaseOwner: owner, status: In(TAKEABLE) };
    const result = await this.runs.update(held, { leaseExpiresAt: new Date((await this.now()).getTime() + leaseMs) });
    if (result.affected === runIds.length) return [];
    const rows = await this.runs.find({
      select: { id: true, status: true, leaseOwner: true },
      where: { id: In([...runIds]) },
    });
    const byId = new Map(rows.map((row) => [row.id, row]));
    return runIds.flatMap((runId) => {
      const row = byId.get(runId);
      const stillHeld = row !== undefined && row.leaseOwner === owner && TAKEABLE.includes(row.status);
      return stillHeld ? [] : [{ runId, status: row?.status ?? null }];
    });
  }

  /** Whether a worker holds a live lease on the run: it executes it, or still stores how it ended. */
  async isHeld(runId: string): Promise<boolean> {
    const now = await this.now();
    return this.runs.exists({ where: { id: runId, leaseOwner: Not(IsNull()), leaseExpiresAt: MoreThan(now) } });
  }

  /** Lets go of a run `owner` holds (it ended or waits on a person); false when `owner` no longer held it. */
  async release(runId: string, owner: string): Promise<boolean> {
    const result = await this.runs.update({ id: runId, leaseOwner: owner }, { leaseOwner: null, leaseExpiresAt: null });
    return result.affected === 1;
  }

  /** Lets go, in one statement, of the runs among `runIds` that `owner` still holds. */
  async releaseAll(runIds: readonly string[], owner: string): Promise<void> {
    if (runIds.length === 0) return;
    await this.runs.update({ id: In([...runIds]), leaseOwner: owner }, { leaseOwner: null, leaseExpiresAt: null });
  }

  /**
   * Gives a run back to the queue: nobody holds it, and should its new job be lost, a sweep finds it
   * again after `leaseMs`. False when `owner` no longer held it (another worker took it over).
   */
  async handBack(runId: string, owner: string, leaseMs: number): Promise<boolean> {
    const result = await this.runs.update(
      { id: runId, leaseOwner: owner },
      { leaseOwner: null, leaseExpiresAt: new Date((await this.now()).getTime() + leaseMs) },
    );
    return result.affected === 1;
  }

  /**
   * Top-level runs queued or running that nobody owns, oldest first: their lease (or a reconciler's claim) ran
   * out, or they were never held and are older than `unheldForMs` (time for their submitter to queue them).
   * Child runs of workflow tools execute inside their parent's execution and are never taken over on their own.
   */
  async unowned(limit: number, unheldForMs: number): Promise<string[]> {
    const now = await this.now();
    const rows = await this.runs.find({
      select: { id: true },
      where: [
        { status: In(UNFINISHED), parentRunId: IsNull(), leaseExpiresAt: LessThan(now) },
        {
          status: In(UNFINISHED),
          parentRunId: IsNull(),
          leaseExpiresAt: IsNull(),
          createdAt: LessThan(new Date(now.getTime() - unheldForMs)),
        },
      ],
      order: { createdAt: 'ASC' },
      take: limit,
    });
    return rows.map((row) => row.id);
  }

  /**
   * Claims an unowned run for re-queueing, so that of several workers reconciling at once only one
   * enqueues it; the claim itself expires after `leaseMs` in case the new job is lost.
   */
  async claimUnowned(runId: string, leaseMs: number): Promise<boolean> {
    const now = await this.now();
    const result = await this.runs
      .createQueryBuilder()
      .update(RunEntity)
      .set({ leaseOwner: null, leaseExpiresAt: new Date(now.getTime() + leaseMs) })
      .where('id = :runId', { runId })
      .andWhere('status IN (:...statuses) AND parent_run_id IS NULL', { statuses: UNFINISHED })
      .andWhere('(lease_expires_at IS NULL OR lease_expires_at < :now)', { now })
      .execute();
    return result.affected === 1;
  }

  /** The database server's time, from this process's clock and its measured offset (embedded SQLite: its own). */
  private async now(): Promise<Date> {
    if (
      this.runs.manager.connection.options.type !== 'sqlite' &&
      performance.now() - this.clockCheckedAt > CLOCK_CHECK_MS
    ) {
      this.clockCheck ??= this.checkClock().finally(() => (this.clockCheck = null));
      await this.clockCheck;
    }
    return new Date(Date.now() + this.clockOffsetMs);
  }

  /** The offset to the server's UTC clock, taken at the middle of the round trip. A failed check keeps the last one. */
  private async checkClock(): Promise<void> {
    try {
      const sent = Date.now();
      const [row] = await this.runs.query<Array<{ now: Date | string }>>('SELECT UTC_TIMESTAMP(3) AS now');
      const received = Date.now();
      const server = row.now instanceof Date ? row.now : new Date(`${row.now}Z`);
      if (Number.isFinite(server.getTime())) this.clockOffsetMs = server.getTime() - (sent + received) / 2;
      this.clockCheckedAt = performance.now();
    } catch {
      this.clockCheckedAt = performance.now() - CLOCK_CHECK_MS / 2;
    }
  }
}
