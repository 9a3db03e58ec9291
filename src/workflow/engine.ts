import { inSpan } from '../common/tracing';
import { RunHandedBackError } from '../runs/run-supervisor';
import type { WorkflowDefinition, WorkflowEdge, WorkflowNode } from './definition.schema';
import type { NodeHandler, NodeServices } from './nodes/node-handler';
import type { NodeHandlers } from './nodes/node-handlers';
import type { Scope } from './references';
import { NodeFailure, type RunContext, WorkflowRunError } from './run-context';
import { errorMessage } from '../shared/error-text';
import { AwaitingApprovalError } from './agent/approval-gate';

/** Persistence of node runs, implemented by the runs module so the engine stays storage-agnostic. */
export interface NodeRecorder {
  nodeStarted(runId: string, node: WorkflowNode): Promise<string>;
  /** The node run an earlier execution of the run left running for this node, if any. */
  runningNodeRun(runId: string, nodeId: string): Promise<string | null>;
  nodeFinished(
    nodeRunId: string,
    result: { status: 'succeeded' | 'failed' | 'cancelled'; output?: unknown; error?: string },
  ): Promise<void>;
}

export interface EngineResult {
  outputs: Record<string, unknown>;
}

const branchOf = (edge: WorkflowEdge): boolean | undefined =>
  edge.condition === undefined ? undefined : edge.condition === true || edge.condition === 'true';

/**
 * Walks a validated definition from its start node in topological order. A node runs when at least
 * one edge into it is active; a condition node activates only the edges of its branch; the first end
 * node reached gives the outputs. Throws WorkflowRunError when a node fails; aborts on `run.signal`.
 */
export class WorkflowEngine {
  private readonly handlers: Readonly<Record<string, NodeHandler>>;

  constructor(
    handlers: NodeHandlers,
    private readonly services: NodeServices,
    private readonly recorder: NodeRecorder,
  ) {
    this.handlers = handlers;
  }

  async run(
    definition: WorkflowDefinition,
    order: string[],
    inputs: Record<string, unknown>,
    run: RunContext,
  ): Promise<EngineResult> {
    const nodes = new Map(definition.nodes.map((node) => [node.id, node]));
    const scope: Scope = { inputs };
    const activeEdges = new Set<WorkflowEdge>();

    for (const id of order) {
      const node = nodes.get(id) as WorkflowNode;
      const handler = this.handlers[node.type];
      const activated =
        handler.entry === true || definition.edges.some((edge) => edge.target === id && activeEdges.has(edge));
      if (!activated) continue;
      if (run.signal.aborted) throw run.signal.reason ?? new Error('cancelled');

      // A node an earlier execution finished is not run again: its stored output stands.
      const stored = run.checkpoint?.finishedOutput(id);
      // Each node is a span of its own; model and tool calls inside it become its children.
      const attributes = { 'toolflow.run.id': run.runId, 'toolflow.node.id': node.id, 'toolflow.node.type': node.type };
      const output =
        stored ??
        (await inSpan(`workflow.node ${node.type}`, { attributes }, () =>
          this.runNode(handler, node, scope, run, definition),
        ));
      scope[id] = output;
      if (handler.exit === true) return { outputs: output.outputs as Record<string, unknown> };
      for (const edge of definition.edges.filter((candidate) => candidate.source === id)) {
        const branch = branchOf(edge);
        if (branch === undefined || branch === Boolean(output.output)) activeEdges.add(edge);
      }
    }
    throw new WorkflowRunError('the run ended without reaching an end node (every branch to an end was skipped)');
  }

  private async runNode(
    handler: NodeHandler,
    node: WorkflowNode,
    scope: Scope,
    run: RunContext,
    definition: WorkflowDefinition,
  ): Promise<Record<string, unknown>> {
    const checkpoint = run.checkpoint;
    const resumedNodeRunId = checkpoint?.resumed ? await this.recorder.runningNodeRun(run.runId, node.id) : null;
    const nodeRunId = resumedNodeRunId ?? (await this.recorder.nodeStarted(run.runId, node));
    const startedAt = Date.now();
    if (!resumedNodeRunId) {
      run.emit('node.started', { node_id: node.id, node_type: node.type, label: node.data?.label ?? null });
    }
    try {
      const output = await handler.run({
        node,
        data: node.data ?? {},
        scope,
        run,
        definition,
        services: this.services,
        handlers: this.handlers,
        step: checkpoint?.stepOf(node.id),
      });
      if (checkpoint) await checkpoint.nodeFinished(node.id, nodeRunId, output);
      else await this.recorder.nodeFinished(nodeRunId, { status: 'succeeded', output });
      run.emit('node.finished', {
        node_id: node.id,
        status: 'succeeded',
        duration_ms: Date.now() - startedAt,
        output: summarize(output),
      });
      return output;
    } catch (error) {
      // Handed back, or waiting for a person: the node run stays open; the execution that resumes the run goes on with it.
      if (run.signal.reason instanceof RunHandedBackError) throw run.signal.reason;
      if (error instanceof AwaitingApprovalError && !run.signal.aborted) throw error;
      // A budget of the run that ran out fails the node with the budget's reason; any other stop cancels it.
      const limit = run.meter?.stopped ?? null;
      const cancelled = run.signal.aborted && limit === null;
      const message = limit?.message ?? errorMessage(error);
      // What the node did before it stopped stays: its partial output (usage, calls) is stored.
      const partial = error instanceof NodeFailure ? error.partialOutput : undefined;
      const status = cancelled ? 'cancelled' : 'failed';
      await this.recorder.nodeFinished(nodeRunId, { status, output: partial, error: message });
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

/** Node outputs can be large (tool results); events carry a bounded preview, node runs the whole. */
function summarize(output: Record<string, unknown>): Record<string, unknown> {
  const text = JSON.stringify(output);
  return text.length <= 2000 ? output : { preview: `${text.slice(0, 2000)}…`, truncated: true };
}
