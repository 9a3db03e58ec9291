import type { WorkflowDefinition, WorkflowNode } from '../definition.types';
import type { Scope } from '../references';
import type { RunContext } from '../run-context';

/** One node type: turns the node's data and the values so far into its output. */
export interface NodeHandler {
  run(
    node: WorkflowNode,
    scope: Scope,
    run: RunContext,
    definition: WorkflowDefinition,
  ): Promise<Record<string, unknown>>;
}
