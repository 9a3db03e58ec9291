import type { ToolCall } from '../shared/tool-types';

/** A person's decision on a call: approved (optionally with arguments that replace the model's), or rejected. */
export type ApprovalDecision =
  | { approved: true; /** JSON text of the arguments to run with, instead of the model's. */ arguments?: string }
  | { approved: false; /** The tool message the model gets instead of a result. */ response: string };

/**
 * Calls that wait for a person before they execute. `check` answers null for a call that needs no decision,
 * 'pending' while one is outstanding (the first check records the request), or the decision once made.
 */
export interface ApprovalGate {
  check(call: ToolCall): Promise<ApprovalDecision | 'pending' | null>;
}

/**
 * Thrown out of the agent loop when a call waits for a decision: the loop's state, with every call that
 * needed none answered, is in its last checkpoint; the run resumes from it once the decision is made.
 */
export class AwaitingApprovalError extends Error {
  constructor() {
    super('waiting for a person to approve a tool call');
    this.name = 'AwaitingApprovalError';
  }
}
