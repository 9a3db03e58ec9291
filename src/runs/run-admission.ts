import type { EntityManager } from 'typeorm';

/** Bounds on a user's stored top-level runs that a new run must stay under to be stored. */
export interface RunCountLimits {
  /** At most this many runs not ended (queued, running, waiting), the new one included. */
  inProgress?: number;
  /** At most `limit` runs created since `from`, the new one included. */
  createdSince?: { from: Date; limit: number };
}

/**
 * Stores a new top-level run when its counts stay within `limits`, in one step with the counting (parallel
 * stores at a limit of k store k runs); false when a limit refused it. `manager` is the one to write with.
 */
export type InsertRunWithin = (limits: RunCountLimits, manager: EntityManager) => Promise<boolean>;

/**
 * Admits one new run of a user: throws a DomainError (429) naming the quota when the user may not start one more,
 * and otherwise stores the run through `insert` with the limits on run counts the user's quotas set.
 */
export type AdmitRun = (insert: InsertRunWithin) => Promise<void>;

/**
 * Port: before a run is created for a user, runs/ asks the module that keeps quotas (quotas/ registers
 * RUN_ADMISSION) whether the user may start one more. `prepare` starts reading what that takes (the user's
 * quotas) and returns at once, so that the read goes on while the run's workflow is read and checked; the
 * AdmitRun it returns decides and stores. Child runs of workflow tools are part of their parent's run and are
 * not asked about.
 */
export interface RunAdmission {
  prepare(userId: string): AdmitRun;
}

export const RUN_ADMISSION = Symbol('RUN_ADMISSION');
