import { type Static, Type } from '@sinclair/typebox';
import type { ToolExecutor } from '../executor';
import { ToolExecutionError } from '../../shared/tool-errors';
import type { WorkflowToolRunner } from './workflow-tool-runner';

/** `implementation_config` of a `workflow` tool. */
const WorkflowToolConfig = Type.Object(
  {
    workflow_id: Type.String({ minLength: 1, maxLength: 64, description: 'Id or name of the workflow' }),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 3_600_000 })),
  },
  { additionalProperties: false },
);
export type WorkflowToolConfig = Static<typeof WorkflowToolConfig>;

/**
 * `workflow` implementation type: another stored workflow run as a tool, with a nesting limit.
 * `runner` is looked up per use: the workflow module that provides it is built on top of this one.
 */
export function createWorkflowExecutor(
  runner: () => WorkflowToolRunner,
  maxDepth: number,
): ToolExecutor<WorkflowToolConfig> {
  return {
    type: 'workflow',
    configDescription:
      'Runs the stored workflow `workflow_id` with the arguments as its inputs and returns its outputs. ' +
      'The parameters schema defaults to the workflow’s declared inputs.',
    configSchema: WorkflowToolConfig,
    secretPaths: [],
    async deriveParameters(config, caller) {
      if (typeof config.workflow_id !== 'string') return undefined;
      const inputs = await runner().inputsSchemaOf(config.workflow_id, caller);
      if (inputs === null) {
        return {
          ok: false,
          problems: [
            { path: '/workflow_id', message: `no workflow "${config.workflow_id}" that this API key can use` },
          ],
        };
      }
      return { ok: true, parameters: structuredClone(inputs) };
    },
    unusableReason(config, caller) {
      return runner().unavailableReason(config.workflow_id, caller);
    },
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
          const { runId, outputs } = await runner().runAsTool(tool.implementationConfig.workflow_id, context.params, {
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
