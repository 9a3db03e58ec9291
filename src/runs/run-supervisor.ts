import type { Principal } from '../common/auth/principal';
import type { ToolDefinition } from '../shared/tool-definition';
import type { RunResponse } from './run.dto';
import type { RunRecord } from './run-record';

export const RUN_SUPERVISOR = Symbol('RUN_SUPERVISOR');
export const RUN_EXECUTOR = Symbol('RUN_EXECUTOR');

/**
 * Port: runs/ asks workflow/ (which registers RUN_EXECUTOR) to execute a stored run. Everything the
 * execution needs is read from the database, so any process can execute any run.
 */
export interface RunExecutor {
  /**
   * Executes stored run `runId` from its last checkpoint (from the start when it has none) until it ends, waits for
   * a person, or `signal` aborts. `created`: the run is new (created by this process, or carried by its queue job)
   * and executes here for the first time, from that copy (its row and its event log are not read back).
   * `leaseOwner` (queue mode): the lease the execution holds; the run's end is stored only while that owner still
   * holds it, else it stops as handed back.
   */
  execute(runId: string, signal: AbortSignal, created?: CreatedHere, leaseOwner?: string): Promise<RunStop>;
}

/** A run a starter just stored, as it submits it: what its execution can use when it takes place in this process. */
export interface NewRunSubmission {
  run: RunRecord;
  /** The tools resolved for it at its start, by node id. */
  tools?: ReadonlyMap<string, readonly ToolDefinition[]>;
  /** The caller waits for its end (`waitForRun`). */
  awaited: boolean;
}

/** What an execution of a run created in this process gets from the supervisor. */
export interface CreatedHere {
  run: RunRecord;
  tools?: ReadonlyMap<string, readonly ToolDefinition[]>;
  /** Told once the run's end is stored and `run.finished` is in its log: a waiting `waitForRun` may answer. */
  endStored: () => void;
}

/** ended: finished/failed/cancelled and recorded; waiting: paused for approval (holds no slot); handed_back: stopped unfinished by a RunHandedBackError abort, resumable from its checkpoint. */
export type RunStop = 'ended' | 'waiting' | 'handed_back';

/** Abort reason for "stop now but do not finish the run: another process (or this one after restart) continues it". */
export class RunHandedBackError extends Error {
  constructor() {
    super('handed back');
    this.name = 'RunHandedBackError';
  }
}

/**
 * Abort reason for "this worker may no longer hold the run's lease" (queue mode: it could not renew it in time, or
 * another worker took the run over): stop at once and store nothing more; whoever holds the run continues it.
 */
export class RunLeaseLostError extends RunHandedBackError {
  constructor() {
    super();
    this.message = 'lease lost';
    this.name = 'RunLeaseLostError';
  }
}

/** The reason stored on runs the service could not finish (a child run whose parent's process went away). */
export const INTERRUPTED = 'interrupted';

/**
 * Where stored runs wait and execute: admission, start, cancel, and what happens to them when the
 * process stops or starts. The embedded implementation is an in-process queue; a durable queue
 * (BullMQ) can take its place behind this token.
 */
export interface RunSupervisor {
  /**
   * Holds a place in the queue for a run about to be created.
   * @throws DomainError `unavailable` while shutting down, `too_many_requests` when MAX_QUEUED_RUNS are queued.
   */
  reserve(): QueuePlace;
  /** Resolves when the run's execution stops (ends, waits, is handed back) or after `timeoutMs`, whichever is first; true if it stopped. */
  waitForEnd(runId: string, timeoutMs: number): Promise<boolean>;
  /**
   * The run as the API shows it once its execution stopped (or after `timeoutMs`): the answer to `?wait=true` for
   * a run submitted with `awaited`. Where the run executed in this process, it comes from what the run wrote.
   */
  waitForRun(runId: string, principal: Principal, timeoutMs: number): Promise<RunResponse>;
  /**
   * Executes a stored run again that went back to `running` after waiting for approval (every decision is made).
   * Durable without it: a restart (embedded) or the lease sweep (queue mode) also resumes such a run.
   */
  resume(runId: string): void;
  /** Stops a queued or running run (409 when it has already ended) and returns it. */
  cancel(runId: string, principal: Principal): Promise<RunResponse>;
  /** Runs of this process: `queued` wait for a slot, `running` hold one. */
  load(): { queued: number; running: number };
}

/** A reserved place in the run queue: used by `submit`, or given back by `release` (a no-op after submit). */
export interface QueuePlace {
  /**
   * Holds a free run slot of this process for the run this place submits, when one is free now and no run waits
   * for one: that run then starts at `submit`, so it may be stored `running` from the start. False otherwise (and
   * always where a run may execute in another process).
   */
  claimSlot(): boolean;
  /** Queues a run just stored; RUN_EXECUTOR executes it when a slot is free. */
  submit(run: NewRunSubmission): void;
  release(): void;
}
