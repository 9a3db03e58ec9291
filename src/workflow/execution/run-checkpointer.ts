import type { CheckpointStepWrites } from '../../runs/run-checkpoint-store';
import type { UsageTotals } from '../../runs/run.entity';
import { addUsage, emptyUsage } from '../../runs/usage-totals';
import type { MeterTotals } from './run-meter';
import { nextTurn } from '../../shared/next-turn';

/** The checkpoint of a run, as stored: per node, its output once it finished, or the state of its step until then. */
export interface RunState {
  nodes: Record<string, NodeState>;
  /** The run's usage and tool calls when the state was stored (absent in checkpoints older than run budgets). */
  meter?: MeterTotals;
}

export interface NodeState {
  /** Set once the node finished: a resumed run takes it instead of running the node again. */
  output?: Record<string, unknown>;
  /** The node handler's own state while it runs (the LLM node's agent loop); opaque here. */
  step?: unknown;
}

/** The node's view of its step checkpoint: where it left off, and how to store where it is now. */
export interface NodeStep {
  readonly state: unknown;
  save(state: unknown): Promise<void>;
}

export interface CheckpointWriter {
  save(runId: string, state: Record<string, unknown>, step?: CheckpointStepWrites): Promise<void>;
}

/** Reads a stored checkpoint; anything unreadable counts as none (the run starts over). */
export const toRunState = (stored: Record<string, unknown> | null): RunState => {
  const nodes = stored?.nodes;
  const meter = stored?.meter as MeterTotals | undefined;
  return {
    nodes: nodes !== null && typeof nodes === 'object' ? (nodes as Record<string, NodeState>) : {},
    ...(meter !== null && typeof meter === 'object' ? { meter } : {}),
  };
};

/** The output of every node the state holds as finished, by node id. */
export const finishedOutputs = (state: RunState): Map<string, Record<string, unknown>> =>
  new Map(
    Object.entries(state.nodes).flatMap(([nodeId, node]) => (node.output ? [[nodeId, node.output] as const] : [])),
  );

/**
 * The checkpoints of one execution of a run: a node that finished is stored with its node run's end beside it;
 * a node's step state whenever the node asks. Writes go out one after another, each with the state as it is when
 * it starts, so that a later state never lands before an earlier one; step states saved while a write runs share
 * the next one.
 */
export class RunCheckpointer {
  private queue: Promise<void> = Promise.resolve();
  private count: (() => MeterTotals) | undefined;
  /** A state-only write that has not started yet. */
  private queuedStateWrite: Promise<void> | null = null;

  constructor(
    private readonly runId: string,
    private readonly writer: CheckpointWriter,
    private readonly state: RunState,
    /** The run executed before (a restart, a hand-back, an approval): its unfinished node runs go on. */
    readonly resumed: boolean,
  ) {}

  /** What the run had used when the state was stored; older checkpoints: the usage of the nodes that had finished. */
  get totals(): MeterTotals {
    if (this.state.meter) return this.state.meter;
    const usage = emptyUsage();
    for (const node of Object.values(this.state.nodes)) {
      addUsage(usage, node.output?.usage as Partial<UsageTotals> | undefined);
    }
    return { usage, tool_calls: 0 };
  }

  /** From now on every stored state carries the run's totals as `count` gives them. */
  countWith(count: () => MeterTotals): void {
    this.count = count;
  }

  /** Stores the state as it is with the run's totals now: a run that stops to wait, or is handed back, keeps the time it ran. */
  storeTotals(): Promise<void> {
    return this.write();
  }

  /** The node's state as stored: its output once it finished, else its step; undefined before it stored one. */
  nodeState(nodeId: string): Readonly<NodeState> | undefined {
    return this.state.nodes[nodeId];
  }

  finishedOutput(nodeId: string): Record<string, unknown> | undefined {
    return this.state.nodes[nodeId]?.output;
  }

  stepOf(nodeId: string): NodeStep {
    return {
      state: this.state.nodes[nodeId]?.step,
      save: (step) => {
        this.state.nodes[nodeId] = { step };
        return this.write();
      },
    };
  }

  nodeFinished(nodeId: string, nodeRunId: string, output: Record<string, unknown>): Promise<void> {
    this.state.nodes[nodeId] = { output };
    return this.write({ nodeFinished: { nodeRunId, status: 'succeeded', output } });
  }

  private write(step?: CheckpointStepWrites): Promise<void> {
    // A state-only save made while the previous write runs joins the one queued behind it: that write takes
    // the state when it starts, so it stores this save too (results of one parallel batch share a write).
    if (step === undefined && this.queuedStateWrite) return this.queuedStateWrite;
    const written: Promise<void> = this.queue.then(async () => {
      if (step === undefined) await nextTurn();
      if (this.queuedStateWrite === written) this.queuedStateWrite = null;
      return this.writer.save(this.runId, { ...this.state, ...(this.count ? { meter: this.count() } : {}) }, step);
    });
    this.queue = written.catch(() => undefined);
    if (step === undefined) this.queuedStateWrite = written;
    return written;
  }
}
