import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, IsNull, LessThan, Repository } from 'typeorm';
import { RunEntity, type RunStatus } from './run.entity';

/** Statuses a worker may take a run in: the executor decides what a waiting run does (it may have been approved). */
const TAKEABLE: RunStatus[] = ['queued', 'running', 'waiting'];

/**
 * Who executes a run in queue mode, held in the database (the truth; Redis only carries the queue):
 * every change is a conditional UPDATE, so two workers never both hold one run.
 */
@Injectable()
export class RunLeasesService {
  constructor(@InjectRepository(RunEntity) private readonly runs: Repository<RunEntity>) {}

  /** Takes the run for `owner` when nobody holds a live lease on it and it has not ended; true when taken. */
  async acquire(runId: string, owner: string, leaseMs: number): Promise<boolean> {
    const now = new Date();
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

  /** Extends the lease of a run `owner` still holds and that has not ended or been cancelled; false otherwise. */
  async renew(runId: string, owner: string, leaseMs: number): Promise<boolean> {
    const result = await this.runs.update(
      { id: runId, leaseOwner: owner, status: In(TAKEABLE) },
      { leaseExpiresAt: new Date(Date.now() + leaseMs) },
    );
    return result.affected === 1;
  }

  /** Lets go of a run `owner` holds (it ended or waits on a person); false when `owner` no longer held it. */
  async release(runId: string, owner: string): Promise<boolean> {
    const result = await this.runs.update({ id: runId, leaseOwner: owner }, { leaseOwner: null, leaseExpiresAt: null });
    return result.affected === 1;
  }

  /**
   * Gives a run back to the queue: nobody holds it, and should its new job be lost, a sweep finds it
   * again after `leaseMs`. False when `owner` no longer held it (another worker took it over).
   */
  async handBack(runId: string, owner: string, leaseMs: number): Promise<boolean> {
    const result = await this.runs.update(
      { id: runId, leaseOwner: owner },
      { leaseOwner: null, leaseExpiresAt: new Date(Date.now() + leaseMs) },
    );
    return result.affected === 1;
  }

  /**
   * Running runs whose lease ran out (their worker died or lost them), oldest first. Child runs of
   * workflow tools execute inside their parent's execution and are never taken over on their own.
   */
  async expired(limit: number): Promise<string[]> {
    const rows = await this.runs.find({
      select: { id: true },
      where: [
        { status: 'running', parentRunId: IsNull(), leaseExpiresAt: LessThan(new Date()) },
        { status: 'running', parentRunId: IsNull(), leaseExpiresAt: IsNull() },
      ],
      order: { startedAt: 'ASC' },
      take: limit,
    });
    return rows.map((row) => row.id);
  }

  /**
   * Claims an expired run for re-queueing, so that of several workers sweeping at once only one
   * enqueues it; the claim itself expires after `leaseMs` in case the new job is lost.
   */
  async claimExpired(runId: string, leaseMs: number): Promise<boolean> {
    const now = new Date();
    const result = await this.runs
      .createQueryBuilder()
      .update(RunEntity)
      .set({ leaseOwner: null, leaseExpiresAt: new Date(now.getTime() + leaseMs) })
      .where('id = :runId', { runId })
      .andWhere("status = 'running' AND parent_run_id IS NULL")
      .andWhere('(lease_expires_at IS NULL OR lease_expires_at < :now)', { now })
      .execute();
    return result.affected === 1;
  }
}
