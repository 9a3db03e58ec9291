import { Injectable } from '@nestjs/common';
import type { Principal } from '../../common/auth/principal';
import { DomainError } from '../../common/errors/domain-error';
import type { WorkflowToolRunner } from '../../executors/workflow/workflow-tool-runner';
import type { ToolRunContext } from '../../shared/tool-definition';
import { ToolExecutionError } from '../../shared/tool-errors';
import { errorMessage } from '../../shared/error-text';
import { WorkflowsService } from '../workflows.service';
import { WorkflowRunExecutor } from './run-executor.service';
import { RunStarter } from './run-starter.service';

/** Who a workflow tool runs as: the caller of the tool, with the caller's rights. */
const toolPrincipal = (caller: { userId: string; isAdmin: boolean }): Principal => ({
  userId: caller.userId,
  role: caller.isAdmin ? 'admin' : 'user',
  keyId: 'workflow-tool',
});

/** WORKFLOW_TOOL_RUNNER: a workflow used as a tool runs as a child run, inline, within its parent's budgets. */
@Injectable()
export class WorkflowToolRuns implements WorkflowToolRunner {
  constructor(
    private readonly workflows: WorkflowsService,
    private readonly starter: RunStarter,
    private readonly executor: WorkflowRunExecutor,
  ) {}

  /** The inputs schema a workflow tool offers as its parameters; null when not visible. */
  async inputsSchemaOf(workflowId: string, caller: { userId: string; isAdmin: boolean }) {
    try {
      const workflow = await this.workflows.findVisible(workflowId, toolPrincipal(caller));
      return workflow.definition.inputs ?? { type: 'object', properties: {} };
    } catch (error) {
      if (error instanceof DomainError && error.code === 'not_found') return null;
      throw error;
    }
  }

  /** What would stop runAsTool before the child run starts (the workflow gone or disabled). */
  async unavailableReason(workflowId: string, caller: { userId: string; isAdmin: boolean }) {
    try {
      const workflow = await this.workflows.findVisible(workflowId, toolPrincipal(caller));
      return workflow.enabled
        ? null
        : { dependency: workflow.name, reason: `runs workflow "${workflow.name}", which is disabled` };
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'not_found')) throw error;
      return {
        dependency: workflowId,
        reason: `runs workflow "${workflowId}", which does not exist or this API key may not use it`,
      };
    }
  }

  /** A child run executed inline; its failure is the tool's failure. */
  async runAsTool(workflowId: string, inputs: Record<string, unknown>, context: ToolRunContext) {
    const principal = toolPrincipal(context);
    let created: Awaited<ReturnType<RunStarter['createRun']>>;
    try {
      const workflow = await this.workflows.findVisible(workflowId, principal);
      // Said for the model, which cannot enable it: the API's 409 tells a person how to.
      if (!workflow.enabled) throw new Error('it is disabled; it cannot be used until someone enables it again');
      // A child run pins the versions of its own tools when it starts, like any run.
      created = await this.starter.createRun({
        definition: workflow.definition,
        inputs,
        principal,
        workflow: { id: workflow.id, version: workflow.version },
        parent: { runId: context.runId, depth: context.depth },
        startsNow: () => true,
      });
    } catch (error) {
      throw new ToolExecutionError(`workflow "${workflowId}" cannot run: ${errorMessage(error)}`);
    }
    const { run, checked } = created;
    // A child run's tokens and tool calls are its parent's too (counted as they happen), whether or not it succeeds.
    const parent = context.runId === null ? undefined : this.executor.meterOf(context.runId);
    const result = await this.executor.executeHere(run, checked, principal, context.signal, context.depth, {
      startsNow: true,
      parent,
    });
    if (result.status !== 'succeeded') {
      throw new ToolExecutionError(`workflow run ${run.id} ${result.status}: ${result.error ?? 'no reason given'}`);
    }
    return { runId: run.id, outputs: result.outputs ?? {} };
  }
}
