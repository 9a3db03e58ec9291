import { defineStore } from 'pinia';
import { reactive } from 'vue';
import { approvalsApi } from '../api/resources';
import type { DecideApprovalDto, RunResponse } from '../api/types';

/**
 * Approvals: deciding one (approve, approve with edited arguments, reject with a comment), and which were decided
 * in this tab, so a list read before the decision no longer offers them (on the run page or the approvals page).
 */
export const useApprovalsStore = defineStore('approvals', () => {
  const decided = reactive(new Set<string>());

  /** The run as it goes on; the API's refusal (422 naming argument fields, 409 decided elsewhere) is thrown. */
  async function decide(runId: string, approvalId: string, body: DecideApprovalDto): Promise<RunResponse> {
    const run = await approvalsApi.decide(runId, approvalId, body);
    decided.add(approvalId);
    return run;
  }

  const isOpen = (approvalId: string) => !decided.has(approvalId);

  return { decided, decide, isOpen };
});
