import type { AgentLoopResult } from './agent-loop-result';
import type { AgentStopReason } from './stop-reason';

export type AgentLoopErrorReason = Extract<AgentStopReason, 'max_iterations' | 'cancelled' | 'error'>;

/**
 * Ends an LLM node: cancellation, `onMaxIterations: 'fail'`, or a provider failure (the ProviderError is the `cause`).
 * `result` holds everything done before the failure (usage, tool calls, a history whose tool calls are all answered).
 */
export class AgentLoopError extends Error {
  constructor(
    message: string,
    readonly stopReason: AgentLoopErrorReason,
    readonly result: AgentLoopResult,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AgentLoopError';
  }
}
