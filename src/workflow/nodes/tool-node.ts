import { type Static, Type } from '@sinclair/typebox';
import { isAdmin } from '../../common/auth/principal';
import { enumOf, freeObject } from '../../json-schema/schema-helpers';
import { TOOL_CALL_STATUSES } from '../../shared/tool-call-status';
import { AwaitingApprovalError } from '../../agent/approval-gate';
import { isRepeatable, UNKNOWN_OUTCOME_RESPONSE } from '../../agent/loop-checkpoint';
import { resolveReferences } from '../references';
import { stopError } from '../execution/run-context';
import type { NodeHandler, NodeRunInput } from './node-handler';
import { approvalGateFor } from './node-approvals';
import { outputObject } from './output-shape';
import { toolsOfNode } from './node-tools';

const PREVIEW_CHARS = 1000;
const STARTED = 'started';

const ToolNodeData = Type.Object(
  {
    label: Type.Optional(Type.String()),
    tool: Type.String({ minLength: 1, maxLength: 64 }),
    arguments: Type.Optional(freeObject({ description: 'Arguments; values may reference nodes' })),
  },
  { additionalProperties: false },
);

const TOOL_NODE_OUTPUT = outputObject({
  output: Type.String({ description: 'The result as text, as the tool returned it (JSON as text)' }),
  data: Type.Unknown({ description: 'The result parsed as JSON (null when it is not JSON or the call failed)' }),
  status: enumOf(TOOL_CALL_STATUSES, { description: 'How the call ended' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'The error text; null on success' }),
});

/**
 * One direct tool call with arguments from references. A failing tool is data (`status`), not a failed node.
 * A tool that requires approval waits for a person as a model's call does: the run waits; approved, it runs
 * (with the person's arguments, when given); rejected, the node's `status` is `rejected` and the run goes on.
 */
export const toolNode: NodeHandler<typeof ToolNodeData> = {
  data: ToolNodeData,
  output: () => TOOL_NODE_OUTPUT,
  toolsUsed: (data) => ({ field: 'tool', names: [data.tool] }),
  renameTools: (data, rename) => ({ ...data, tool: rename(data.tool) }),
  async run(input) {
    const output = await callTool(input);
    // The call's log is stored before the node's output is checkpointed, so that a crash after that cannot leave a
    // finished call without its log (a run's logs are otherwise written with the next model answer, or at its end).
    // A failed write is reported and retried with the next one.
    await input.services.callLogs.flushRunInBackground(input.run.runId);
    return output;
  },
};

async function callTool({
  node,
  data,
  scope,
  run,
  services,
  step,
}: NodeRunInput<Static<typeof ToolNodeData>>): Promise<Record<string, unknown>> {
  const { registry, toolCalls } = services;
  const name = data.tool;
  const tools = await toolsOfNode(node.id, { field: 'tool', names: [name] }, run, registry);
  const call = {
    id: `${node.id}-call`,
    name,
    arguments: JSON.stringify(resolveReferences(data.arguments ?? {}, scope)),
  };
  const context = {
    runId: run.runId,
    userId: run.principal.userId,
    isAdmin: isAdmin(run.principal),
    signal: run.signal,
    depth: run.depth,
  };
  const decision = await approvalGateFor({ node, step, run, services }, tools).check(call);
  if (decision === 'pending') throw new AwaitingApprovalError();
  if (decision?.approved === false) {
    await toolCalls.recordUnrunCall({
      call,
      tools,
      nodeId: node.id,
      status: 'rejected',
      response: decision.response,
      context,
    });
    return { output: decision.response, data: null, status: 'rejected', error: decision.response };
  }
  if (decision?.arguments !== undefined) call.arguments = decision.arguments;
  // A call that may change things is marked started first: after a crash it is not repeated.
  if (step && !isRepeatable(tools[0].effect)) {
    if (step.state === STARTED) {
      const response = UNKNOWN_OUTCOME_RESPONSE;
      await toolCalls.recordUnrunCall({ call, tools, nodeId: node.id, status: 'unknown_outcome', response, context });
      return { output: response, data: null, status: 'unknown_outcome', error: response };
    }
    await step.save(STARTED);
  }
  if (run.meter && !run.meter.startToolCall()) throw stopError(run.signal);
  run.emit('tool.call', { node_id: node.id, call_id: call.id, name, index: 0 });
  const outcome = await toolCalls.runCall({ call, tools, nodeId: node.id, context });
  run.emit('tool.result', {
    node_id: node.id,
    call_id: call.id,
    name,
    status: outcome.status,
    duration_ms: outcome.metadata.duration_ms,
    response: outcome.response.slice(0, PREVIEW_CHARS),
  });
  // A call the run's stop aborted (a cancel, a budget, a failure on another branch) stops the node too; its
  // tool.result above says why.
  if (run.signal.aborted) throw stopError(run.signal);
  const success = outcome.status === 'success';
  return {
    output: outcome.response,
    data: outcome.data ?? null,
    status: outcome.status,
    error: success ? null : outcome.response,
  };
}
