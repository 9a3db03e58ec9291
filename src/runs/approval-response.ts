import { maskArguments, secretArgumentNames } from '../shared/argument-secrets';
import type { ApprovalResponse, PendingApprovalDto } from './approval.dto';
import type { RunApprovalEntity } from './run-approval.entity';

/** Arguments are shown with credentials masked, as tool-call logs and events show them. */
export const toPendingApproval = (row: RunApprovalEntity): PendingApprovalDto => ({
  id: row.id,
  node_id: row.nodeId,
  call_id: row.callId,
  tool: row.toolName,
  arguments: maskArguments(row.arguments, secretArgumentNames(row.parameters)),
  requested_at: row.requestedAt.toISOString(),
});

/** What an approval shows of its run: whether it has ended, and its workflow by name and version. */
export interface ApprovalRun {
  ended: boolean;
  workflowId: string | null;
  workflowName: string | null;
  workflowVersion: number | null;
}

/** `run.ended`: the approval's run has ended, so a call nobody decided is listed `cancelled`, not `pending`. */
export const toApprovalResponse = (row: RunApprovalEntity, run: ApprovalRun): ApprovalResponse => ({
  ...toPendingApproval(row),
  run_id: row.runId,
  workflow_id: run.workflowId,
  workflow_name: run.workflowName,
  workflow_version: run.workflowVersion,
  status: row.status === 'pending' && run.ended ? 'cancelled' : row.status,
  decided_arguments:
    row.decidedArguments === null ? null : maskArguments(row.decidedArguments, secretArgumentNames(row.parameters)),
  comment: row.comment,
  decided_by: row.decidedBy,
  decided_at: row.decidedAt?.toISOString() ?? null,
});
