import type { Principal } from '../../common/auth/principal';
import type { RunEventType } from '../../runs/run-event-types';
import type { ToolDefinition } from '../../shared/tool-definition';
import type { ToolPins } from '../../tools/stored-tool';
import type { RunCheckpointer } from './run-checkpointer';
import type { RunMeter } from './run-meter';
import type { ModelCalls } from '../recording/model-calls';

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
   * The run's usage and tool calls, counted as they happen (model calls of every node, also of nodes that
   * fail or are cancelled, and of child workflow-tool runs), against the run's budgets.
   */
  meter?: RunMeter;
  /** Each node's tools as the run's start resolved them, so the node does not look them up again. */
  resolvedTools?: ReadonlyMap<string, readonly ToolDefinition[]>;
  /** The tool versions the run pinned at its start: what a node uses when `resolvedTools` has not got its tools. */
  toolPins?: ToolPins;
  /** How LLM nodes reach their providers (recorded, or answered from a recording); absent: directly. */
  models?: ModelCalls;
  /**
   * The map items and loop iterations a nested graph runs inside, outermost first (`each[2]/again[0]`); absent at
   * the top. Its nodes' model calls are recorded and replayed per item, so parallel items never swap answers.
   */
  item?: string;
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

/** Why the run stops (a budget used up, a cancel), as the error a node fails with. */
export const stopError = (signal: AbortSignal): Error =>
  signal.reason instanceof Error ? signal.reason : new Error('the run was stopped');
