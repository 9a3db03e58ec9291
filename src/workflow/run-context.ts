import type { Principal } from '../common/auth/principal';
import type { RunEventType } from '../runs/run-event-types';

/** What every node sees of the run it belongs to. Knows nothing about HTTP or the database. */
export interface RunContext {
  runId: string;
  principal: Principal;
  /** Nesting depth of workflow-as-tool runs; 0 at the top. */
  depth: number;
  signal: AbortSignal;
  emit(type: RunEventType, data: Record<string, unknown>): void;
}

/** Ends a run with a reason (a failed node, a provider error …); the engine turns it into status `failed`. */
export class WorkflowRunError extends Error {
  constructor(
    message: string,
    readonly nodeId: string | null = null,
  ) {
    super(message);
    this.name = 'WorkflowRunError';
  }
}
