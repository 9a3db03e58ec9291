import type { ToolDefinition } from '../../shared/tool-definition';
import { maskArguments, secretArgumentNames } from '../../shared/argument-secrets';
import type { ApprovalDecision, ApprovalGate } from '../../agent/approval-gate';
import type { RunContext } from '../execution/run-context';
import type { NodeServices, NodeRunInput } from './node-handler';

/** What the model is told when a person rejects its call; the comment is passed on verbatim. */
export const rejectedResponse = (toolName: string, comment: string | null): string =>
  `The call of tool ${toolName} was rejected by a person and was not executed.` +
  (comment === null || comment === '' ? '' : ` Their comment: ${comment}`);

/** Without a durable run to wait in (a workflow used as a tool), a call that needs approval cannot run. */
export const NO_APPROVAL_RESPONSE =
  'Not executed: this tool needs a person’s approval, and this run cannot wait for one (a workflow used as a tool ' +
  'cannot pause). Run the workflow that calls it directly to have the call approved.';

/**
 * The approval gate of one node (an LLM node's calls, a tool node's one call): a call of a tool that requires
 * approval (with valid arguments) is recorded as a request and waits; the decision, once made, approves it (with
 * the person's arguments, when given) or answers it as rejected. A node without a step checkpoint cannot wait,
 * so such calls are answered unrun.
 */
export function approvalGateFor(
  input: Pick<NodeRunInput<unknown>, 'node' | 'step'> & { run: RunContext; services: NodeServices },
  tools: readonly ToolDefinition[],
): ApprovalGate {
  const { node, step, run, services } = input;
  return {
    async check(call): Promise<ApprovalDecision | 'pending' | null> {
      const request = services.toolCalls.approvalRequestFor(call, tools);
      if (request === null) return null;
      if (step === undefined || services.approvals === undefined) {
        return { approved: false, response: NO_APPROVAL_RESPONSE };
      }
      const approval = await services.approvals.request({
        runId: run.runId,
        nodeId: node.id,
        callId: call.id,
        toolName: call.name,
        arguments: request.arguments,
        parameters: request.parameters,
        userId: run.principal.userId,
      });
      if (approval.created) {
        run.emit('approval.requested', {
          approval_id: approval.id,
          node_id: node.id,
          call_id: call.id,
          tool: call.name,
          arguments: maskArguments(request.arguments, secretArgumentNames(request.parameters)),
        });
      }
      switch (approval.status) {
        case 'pending':
          return 'pending';
        case 'approved':
          return approval.decidedArguments === null
            ? { approved: true }
            : { approved: true, arguments: JSON.stringify(approval.decidedArguments) };
        case 'rejected':
          return { approved: false, response: rejectedResponse(call.name, approval.comment) };
      }
    },
  };
}
