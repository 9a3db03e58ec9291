import type { JsonSchema } from '../../shared/tool-types';
import type { UnusableTool } from '../executor';
import type { ToolRunContext } from '../../shared/tool-definition';

/** Token of the WorkflowToolRunner port (a Port, see common/port.ts); the workflow module registers it. */
export const WORKFLOW_TOOL_RUNNER = Symbol('WORKFLOW_TOOL_RUNNER');

/** Port: runs a stored workflow for a tool call. executors/ declares it, workflow/ (above it) implements it. */
export interface WorkflowToolRunner {
  runAsTool(
    workflowId: string,
    inputs: Record<string, unknown>,
    context: ToolRunContext,
  ): Promise<{ runId: string; outputs: Record<string, unknown> }>;
  /** The declared inputs schema of a workflow the caller can see, or null when there is none. */
  inputsSchemaOf(workflowId: string, caller: { userId: string; isAdmin: boolean }): Promise<JsonSchema | null>;
  /** Why a run as the caller could not start the workflow now (gone, not visible, disabled), or null when it could. */
  unavailableReason(workflowId: string, caller: { userId: string; isAdmin: boolean }): Promise<UnusableTool | null>;
}
