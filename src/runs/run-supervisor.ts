import type { Principal } from '../common/auth/principal';
import type { RunResponse } from './run.dto';

export const RUN_SUPERVISOR = Symbol('RUN_SUPERVISOR');

/** Executes one stored run to its end (recording how it ended); `signal` aborts on cancel or shutdown. */
export type RunExecution = (signal: AbortSignal) => Promise<void>;

/** Why a run was stopped without a person asking: the service shut down before it ended. */
export class RunInterruptedError extends Error {
  constructor() {
    super('interrupted');
    this.name = 'RunInterruptedError';
  }
}

/** The reason stored on runs the service could not finish (shutdown, or a process that died). */
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
  /** Resolves when the run ends or after `timeoutMs`, whichever is first; true if it ended. */
  waitForEnd(runId: string, timeoutMs: number): Promise<boolean>;
  /** Stops a queued or running run (409 when it has already ended) and returns it. */
  cancel(runId: string, principal: Principal): Promise<RunResponse>;
  /** Runs of this process: `queued` wait for a slot, `running` hold one. */
  load(): { queued: number; running: number };
}

/** A reserved place in the run queue: used by `submit`, or given back by `release` (a no-op after submit). */
export interface QueuePlace {
  /** Queues a run already stored as `queued`; `execute` starts when a slot is free. */
  submit(runId: string, execute: RunExecution): void;
  release(): void;
}
