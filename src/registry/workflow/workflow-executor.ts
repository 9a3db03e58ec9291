import type { ToolExecutor } from '../executor';
import { ToolExecutionError, type ToolRunContext } from '../tool-definition';
import { type JsonSchema } from '../../shared/tool-types';

export interface WorkflowToolConfig {
  workflow_id: string;
  timeout_ms?: number;
}

/** Runs a stored workflow for a tool call; implemented by the workflow module and bound at start-up. */
export interface WorkflowToolRunner {
  runAsTool(
    workflowId: string,
    inputs: Record<string, unknown>,
    context: ToolRunContext,
  ): Promise<{ runId: string; outputs: Record<string, unknown> }>;
  /** The declared inputs schema of a workflow the caller can see, or null when there is none. */
  inputsSchemaOf(workflowId: string, caller: { userId: string; isAdmin: boolean }): Promise<JsonSchema | null>;
}

/** Late binding: the workflow module depends on the registry, so it hands its runner over once it exists. */
export class WorkflowRunnerRef {
  runner: WorkflowToolRunner | null = null;
}

/** `workflow` implementation type: another stored workflow run as a tool, with a nesting limit. */
export function createWorkflowExecutor(ref: WorkflowRunnerRef, maxDepth: number): ToolExecutor<WorkflowToolConfig> {
  return {
    type: 'workflow',
    configDescription:
      'Runs the stored workflow `workflow_id` with the arguments as its inputs and returns its outputs. ' +
      'The parameters schema defaults to the workflow’s declared inputs.',
    configSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['workflow_id'],
      properties: {
        workflow_id: { type: 'string', minLength: 1, maxLength: 64, description: 'Id or name of the workflow' },
        timeout_ms: { type: 'integer', minimum: 100, maximum: 3_600_000 },
      },
    },
    secretPaths: [],
    toDefinition(tool) {
      return {
        id: tool.id,
        version: tool.version,
        schema: tool.functionSchema,
        effect: tool.effect,
        timeoutMs: tool.implementationConfig.timeout_ms ?? 300_000,
        async execute(context) {
          if (context.run.depth + 1 > maxDepth) {
            throw new ToolExecutionError(
              `workflow nesting limit reached: ${tool.name} would run at depth ${context.run.depth + 1}, ` +
                `the limit is ${maxDepth} (WORKFLOW_MAX_DEPTH); a workflow calling itself stops here`,
            );
          }
          if (!ref.runner) throw new ToolExecutionError('workflow tools are not available in this process');
          const { runId, outputs } = await ref.runner.runAsTool(tool.implementationConfig.workflow_id, context.params, {
            ...context.run,
            signal: context.signal,
            depth: context.run.depth + 1,
          });
          return { response: JSON.stringify(outputs), data: outputs, metadata: { run_id: runId } };
        },
      };
    },
  };
}
