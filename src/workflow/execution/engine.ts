import { Deadline } from '../../common/deadline';
import { inSpan } from '../../common/tracing';
import { RunHandedBackError } from '../../runs/run-supervisor';
import type { WorkflowDefinition, WorkflowEdge, WorkflowNode } from '../definition.schema';
import { graphOrder } from '../graph-order';
import type { NestedGraphRunner, NodeHandler, NodeServices } from '../nodes/node-handler';
import type { NodeHandlers } from '../nodes/node-handlers';
import type { Scope } from '../references';
import { NodeFailure, type RunContext, WorkflowRunError } from './run-context';
import type { NodeStep } from './run-checkpointer';
import { errorMessage } from '../../shared/error-text';
import { AwaitingApprovalError } from '../../agent/approval-gate';

/** Persistence of node runs, implemented by the runs module so the engine stays storage-agnostic. */
export interface NodeRecorder {
  /**
   * Stores a node run that starts, and in the same write the node runs of pure nodes that ended before it; resolves
   * to its id once stored. The engine does not wait for it before the node starts (see runNode).
   */
  nodeStarted(runId: string, node: WorkflowNode, ended?: readonly EndedNodeRun[]): Promise<string>;
  /** The node run an earlier execution of the run left running for this node, if any. */
  runningNodeRun(runId: string, nodeId: string): Promise<string | null>;
  nodeFinished(nodeRunId: string, result: NodeRunEnd): Promise<void>;
  /** Stores the node runs of pure nodes that ended, in one write. */
  nodeEnded(runId: string, ended: readonly EndedNodeRun[]): Promise<void>;
  /** Whether an earlier execution of the run stored a node run for this node. */
  hasNodeRun(runId: string, nodeId: string): Promise<boolean>;
}

export interface NodeRunEnd {
  status: 'succeeded' | 'failed' | 'cancelled';
  output?: unknown;
  error?: string;
}

/** The node run of a pure node that ended and is not stored yet. */
export interface EndedNodeRun {
  node: WorkflowNode;
  startedAt: Date;
  finishedAt: Date;
  result: NodeRunEnd;
}

export interface EngineResult {
  outputs: Record<string, unknown>;
  /** The output of every node that finished in this walk, by node id. */
  nodes: Record<string, Record<string, unknown>>;
  /**
   * The node runs of pure nodes that ended after the last node run was written (the end node's): not stored yet,
   * the caller stores them with the run's end, in the same round trip. Only a walk that succeeded leaves any.
   */
  unstored: EndedNodeRun[];
}

/** The nodes of a nested graph have no node runs: the node that runs the graph records its results. */
const NESTED_RECORDER: NodeRecorder = {
  nodeStarted: () => Promise.resolve(''),
  runningNodeRun: () => Promise.resolve(null),
  nodeFinished: () => Promise.resolve(),
  nodeEnded: () => Promise.resolve(),
  hasNodeRun: () => Promise.resolve(false),
};

/** Events of a nested graph's nodes that stay inside it: they have no node runs, their node is the one shown. */
const NESTED_NODE_EVENTS = new Set(['node.started', 'node.finished']);

const branchOf = (edge: WorkflowEdge): boolean | undefined =>
  edge.condition === undefined ? undefined : edge.condition === true || edge.condition === 'true';

/** Default bound of the nodes of one run that execute at once (RUN_MAX_PARALLEL_NODES). */
export const DEFAULT_MAX_PARALLEL_NODES = 4;

/** The abort reason of nodes still running on other branches when one node fails. */
export class BranchStopped extends Error {
  constructor(readonly failedNodeId: string) {
    super(`stopped because node "${failedNodeId}" failed on another branch`);
    this.name = 'BranchStopped';
  }
}

type NodeState = 'pending' | 'running' | 'done' | 'skipped' | 'waiting';

/**
 * Walks a validated definition from its start node. A node starts once every node with an edge into it has
 * finished or been skipped (a join waits for all of its inputs), when at least one of those edges is active; a
 * condition node activates only the edges of its branch; a node none of whose edges is active is skipped.
 * Independent branches run concurrently, at most `maxParallelNodes` nodes at once, started in topological order.
 * An end node starts once nothing else is running; the first to finish gives the outputs. When a node fails,
 * the nodes still running on other branches are aborted (BranchStopped) and the run fails with the first
 * failure (WorkflowRunError). A node waiting for a person's approval starts nothing more; the nodes still running
 * finish, then the run waits (AwaitingApprovalError). Aborts on `run.signal`.
 */
export class WorkflowEngine {
  readonly handlers: Readonly<Record<string, NodeHandler>>;

  constructor(
    private readonly nodeHandlers: NodeHandlers,
    private readonly services: NodeServices,
    private readonly recorder: NodeRecorder,
    private readonly maxParallelNodes = DEFAULT_MAX_PARALLEL_NODES,
  ) {
    this.handlers = nodeHandlers;
  }

  async run(
    definition: WorkflowDefinition,
    order: string[],
    inputs: Record<string, unknown>,
    run: RunContext,
    /** What references see besides `inputs` and the nodes of this walk (a nested graph's outer scope and names). */
    outerScope: Scope = {},
  ): Promise<EngineResult> {
    const nodes = new Map(definition.nodes.map((node) => [node.id, node]));
    const incoming = new Map<string, WorkflowEdge[]>(order.map((id) => [id, []]));
    for (const edge of definition.edges) incoming.get(edge.target)?.push(edge);
    const scope: Scope = { ...outerScope, inputs };
    const finished: Record<string, Record<string, unknown>> = {};
    const activeEdges = new Set<WorkflowEdge>();
    const states = new Map<string, NodeState>(order.map((id) => [id, 'pending']));
    const settled = (id: string) => states.get(id) === 'done' || states.get(id) === 'skipped';
    const running = new Map<string, Promise<void>>();
    const walk: {
      failure?: { error: unknown };
      waiting?: AwaitingApprovalError;
      result?: EngineResult;
      exitStarted?: boolean;
    } = {};
    // The branches of this run stop together: one node's failure aborts the others.
    const branches = new Deadline({ parent: run.signal });
    const branchRun: RunContext = { ...run, signal: branches.signal };
    // The node runs of pure nodes that ended ride along with the next node run's INSERT (or, after a walk that
    // succeeded, with the run's end; else one INSERT at the end): one round trip fewer per pure node. A resumed run
    // computes a pure node whose row was not stored yet again.
    const unstored: EndedNodeRun[] = [];

    const finish = (id: string, handler: NodeHandler, output: Record<string, unknown>): void => {
      scope[id] = output;
      finished[id] = output;
      states.set(id, 'done');
      if (handler.exit === true)
        walk.result ??= { outputs: output.outputs as Record<string, unknown>, nodes: finished, unstored: [] };
      for (const edge of definition.edges.filter((candidate) => candidate.source === id)) {
        const branch = branchOf(edge);
        if (branch === undefined || branch === Boolean(output.output)) activeEdges.add(edge);
      }
    };

    const fail = (error: unknown, stop: unknown): void => {
      walk.failure ??= { error };
      branches.cancel(stop);
    };

    const launch = (node: WorkflowNode, handler: NodeHandler): void => {
      states.set(node.id, 'running');
      if (handler.exit === true) walk.exitStarted = true;
      // Each node is a span of its own; model and tool calls inside it become its children.
      const attributes = { 'toolflow.run.id': run.runId, 'toolflow.node.id': node.id, 'toolflow.node.type': node.type };
      const task = inSpan(`workflow.node ${node.type}`, { attributes }, () =>
        this.runNode(handler, node, scope, branchRun, definition, unstored),
      ).then(
        (output) => finish(node.id, handler, output),
        (error: unknown) => {
          // A node that waits for a person stops nothing: the other running nodes finish (and are checkpointed) first.
          if (error instanceof AwaitingApprovalError && !branches.signal.aborted) {
            states.set(node.id, 'waiting');
            walk.waiting ??= error;
          } else {
            fail(error, new BranchStopped(node.id));
          }
        },
      );
      running.set(
        node.id,
        task.finally(() => running.delete(node.id)),
      );
    };

    /** Settles what is skipped or stored and starts what is ready, in topological order; true when anything changed. */
    const advance = (): boolean => {
      let changed = false;
      for (const id of order) {
        if (walk.result || walk.failure || walk.waiting || walk.exitStarted || running.size >= this.maxParallelNodes) {
          break;
        }
        const edges = incoming.get(id) ?? [];
        if (states.get(id) !== 'pending' || !edges.every((edge) => settled(edge.source))) continue;
        const node = nodes.get(id) as WorkflowNode;
        const handler = this.handlers[node.type];
        if (handler.entry !== true && !edges.some((edge) => activeEdges.has(edge))) {
          states.set(id, 'skipped');
          changed = true;
          continue;
        }
        if (run.signal.aborted) {
          fail(run.signal.reason ?? new Error('cancelled'), run.signal.reason);
          break;
        }
        // A node an earlier execution finished is not run again: its stored output stands.
        const stored = run.checkpoint?.finishedOutput(id);
        if (stored) {
          finish(id, handler, stored);
          changed = true;
        } else if (handler.exit !== true || running.size === 0) {
          launch(node, handler);
          changed = true;
        }
      }
      return changed;
    };

    try {
      while (advance() || running.size > 0) {
        if (running.size > 0) await Promise.race(running.values());
      }
      // A failure waits for the branches it stopped, so that every node run is closed before the run ends.
      await Promise.all(running.values());
      const succeeded = walk.result && !walk.failure && !walk.waiting;
      if (unstored.length > 0 && !succeeded) await this.recorder.nodeEnded(run.runId, unstored.splice(0));
    } finally {
      branches.dispose();
    }
    if (walk.failure) throw walk.failure.error;
    if (walk.waiting) throw walk.waiting;
    if (walk.result) return { ...walk.result, unstored: unstored.splice(0) };
    throw new WorkflowRunError('the run ended without reaching an end node (every branch to an end was skipped)');
  }

  /** Runs a nested graph as a walk of its own: same handlers, services and bound on parallel nodes, no node runs. */
  private readonly runGraph: NestedGraphRunner = async (graph, scope, run) => {
    const definition = { name: 'nested', nodes: graph.nodes, edges: graph.edges } as WorkflowDefinition;
    const { order } = graphOrder(
      graph.nodes.map((node) => node.id),
      graph.edges,
    );
    const nested = new WorkflowEngine(this.nodeHandlers, this.services, NESTED_RECORDER, this.maxParallelNodes);
    const emit: RunContext['emit'] = (type, data) => {
      if (!NESTED_NODE_EVENTS.has(type)) run.emit(type, data);
    };
    const inputs = (scope.inputs ?? {}) as Record<string, unknown>;
    return nested.run(definition, order, inputs, { ...run, emit, checkpoint: undefined }, scope);
  };

  private async runNode(
    handler: NodeHandler,
    node: WorkflowNode,
    scope: Scope,
    run: RunContext,
    definition: WorkflowDefinition,
    unstored: EndedNodeRun[],
  ): Promise<Record<string, unknown>> {
    const checkpoint = run.checkpoint;
    const pure = handler.pure === true;
    const resumedNodeRunId =
      checkpoint?.resumed && !pure ? await this.recorder.runningNodeRun(run.runId, node.id) : null;
    // A pure node's run is written once it ended (no row while it runs, no checkpoint of its output). Another
    // node's row is written while the node starts its work (one round trip fewer before it): the node's first
    // checkpoint and its end wait for it, so nothing durable of the node is stored before its node run.
    const nodeRun = pure
      ? null
      : resumedNodeRunId !== null
        ? Promise.resolve(resumedNodeRunId)
        : this.recorder.nodeStarted(run.runId, node, unstored.splice(0));
    // A failed write is thrown where the node run is awaited.
    nodeRun?.catch(() => undefined);
    const step = checkpoint?.stepOf(node.id);
    const input = {
      node,
      data: node.data ?? {},
      scope,
      run,
      definition,
      services: this.services,
      handlers: this.handlers,
      step: step && nodeRun ? afterStored(step, nodeRun) : step,
      runGraph: this.runGraph,
    };
    // A pure node is computed again when the run resumes; the node run an earlier execution stored stands.
    if (pure && checkpoint?.resumed && (await this.recorder.hasNodeRun(run.runId, node.id))) return handler.run(input);
    const started = new Date();
    const startedAt = started.getTime();
    const end = async (result: NodeRunEnd): Promise<void> => {
      if (nodeRun) return this.recorder.nodeFinished(await nodeRun, result);
      unstored.push({ node, startedAt: started, finishedAt: new Date(), result });
    };
    if (!resumedNodeRunId) {
      run.emit('node.started', { node_id: node.id, node_type: node.type, label: node.data?.label ?? null });
    }
    try {
      const output = await handler.run(input);
      if (checkpoint && nodeRun) await checkpoint.nodeFinished(node.id, await nodeRun, output);
      else await end({ status: 'succeeded', output });
      run.emit('node.finished', {
        node_id: node.id,
        status: 'succeeded',
        duration_ms: Date.now() - startedAt,
        output: summarize(output),
      });
      return output;
    } catch (error) {
      // Handed back, or waiting for a person: the node run stays open (stored by now); the execution that resumes the
      // run goes on with it.
      if (run.signal.reason instanceof RunHandedBackError) {
        await nodeRun?.catch(() => undefined);
        throw run.signal.reason;
      }
      if (error instanceof AwaitingApprovalError && !run.signal.aborted) {
        await nodeRun?.catch(() => undefined);
        throw error;
      }
      // A budget of the run that ran out fails the node with the budget's reason; any other stop cancels it.
      const limit = run.meter?.stopped ?? null;
      const cancelled = run.signal.aborted && limit === null;
      const stoppedBy = run.signal.reason instanceof BranchStopped ? run.signal.reason : null;
      const message = limit?.message ?? stoppedBy?.message ?? errorMessage(error);
      // What the node did before it stopped stays: its partial output (usage, calls) is stored.
      const partial = error instanceof NodeFailure ? error.partialOutput : undefined;
      const status = cancelled ? 'cancelled' : 'failed';
      await end({ status, output: partial, error: message });
      run.emit('node.finished', {
        node_id: node.id,
        status,
        duration_ms: Date.now() - startedAt,
        error: message,
      });
      if (run.signal.aborted) throw run.signal.reason ?? error;
      throw new WorkflowRunError(`node "${node.id}" (${node.type}) failed: ${message}`, node.id);
    }
  }
}

/** The node's step, whose saves wait until its node run is stored. */
function afterStored(step: NodeStep, nodeRun: Promise<string>): NodeStep {
  return {
    state: step.state,
    save: async (state) => {
      await nodeRun;
      return step.save(state);
    },
  };
}

/** Node outputs can be large (tool results); events carry a bounded preview, node runs the whole. */
function summarize(output: Record<string, unknown>): Record<string, unknown> {
  const text = JSON.stringify(output);
  return text.length <= 2000 ? output : { preview: `${text.slice(0, 2000)}…`, truncated: true };
}
