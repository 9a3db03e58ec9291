import type { Principal } from '../common/auth/principal';
import type { RunEventType } from '../runs/run-event-types';
import type { UsageTotals } from '../runs/run.entity';
import type { ToolDefinition } from '../registry/tool-definition';
import type { ToolPins } from '../tools/stored-tool';
import type { RunCheckpointer } from './run-checkpointer';

/** What every node sees of the run it belongs to. Knows nothing about HTTP or the database. */
export interface RunContext {
  runId: string;
  principal: Principal;
  /** Nesting depth of workflow-as-tool runs; 0 at the top. */
  depth: number;
  signal: AbortSignal;
  emit(type: RunEventType, data: Record<string, unknown>): void;
  /** Where the run's progress is stored and read back on resume; absent for child runs (their parent's call is the unit). */
  checkpoint?: RunCheckpointer;
  /**
   * The run's usage so far, added to in place: the engine adds each node's as it ends (a failed or
   * cancelled node's partial usage too), the runner the usage of child workflow-tool runs.
   */
  usage?: UsageTotals;
  /** Each node's tools as the run's start resolved them, so the node does not look them up again. */
  resolvedTools?: ReadonlyMap<string, readonly ToolDefinition[]>;
  /** The tool versions the run pinned at its start: what a node uses when `resolvedTools` has not got its tools. */
  toolPins?: ToolPins;
}

/** A node failed (or was cancelled) after doing part of its work: `partialOutput` is what it had (usage …). */
export class NodeFailure extends Error {
  constructor(
    message: string,
    readonly partialOutput: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'NodeFailure';
  }
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
