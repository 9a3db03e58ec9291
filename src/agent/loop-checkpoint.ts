import type { MalformedToolCall } from '../llm/provider';
import type { ChatMessage } from '../shared/chat-types';
import type { ToolCall, ToolEffect } from '../shared/tool-types';
import type { AgentLoopUsage, AgentToolCallRecord } from './agent-loop-result';
import type { InvalidCallState } from './invalid-call-tracker';
import type { RepetitionState, RepetitionVerdict } from './repetition-breaker';
import { toToolBatches } from './tool-batches';

/**
 * How one call of a round was answered (run, skipped, or not repeated after a crash): the loop's record of the call
 * (see AgentToolCallRecord) before it joins `toolCalls`, its `repair` also knowing a repair of the arguments alone.
 */
export type RoundAnswer = Pick<AgentToolCallRecord, 'status' | 'response' | 'repair'> & { durationMs: number };

/** One call of the model response being answered. */
export interface RoundCall {
  call: ToolCall;
  verdict: RepetitionVerdict;
  /** Set when the loop answers the call itself instead of running it. */
  skipResponse?: string;
  answer?: RoundAnswer;
  /** pending: waits for a person (it never started); approved: may run, with `approvedArguments` when they were edited. */
  approval?: 'pending' | 'approved';
  approvedArguments?: string;
}

/** The calls of the last model response, from that response until every one is answered. */
export interface LoopRound {
  calls: RoundCall[];
  malformed: MalformedToolCall[];
}

/**
 * Everything the agent loop needs to go on where it was: stored (as JSON) after every model response
 * and after every tool result, and given back as `resume` to continue a loop in another process.
 */
export interface AgentLoopCheckpoint {
  messages: ChatMessage[];
  toolCalls: AgentToolCallRecord[];
  usage: AgentLoopUsage;
  iterationsUsed: number;
  startedToolCalls: number;
  forcing: boolean;
  invalidCalls: InvalidCallState;
  repetition: RepetitionState;
  /** Null between rounds (the next step is a model call). */
  round: LoopRound | null;
  /** Final answers sent back so far (see AnswerCheck); absent: none. */
  answerRetries?: number;
}

/** What a resumed loop does with each call of its stored round. */
export type ResumeAction = 'answered' | 'run' | 'unknown_outcome';

/** Effects whose call may run twice without harm. */
const REPEATABLE: ReadonlySet<ToolEffect> = new Set(['read_only', 'idempotent']);
export const isRepeatable = (effect: ToolEffect | undefined): boolean => effect !== undefined && REPEATABLE.has(effect);

export const UNKNOWN_OUTCOME_RESPONSE =
  'The outcome of this call is unknown: the run was interrupted while the call was executing, and it was not ' +
  'repeated because the tool may change things. Check whether it took effect before calling it again.';

/**
 * Decides, for a round stored by a process that died, what happens to each call. Batches run in order and
 * the loop stores every result before the next batch starts, so only unanswered calls of the first batch
 * with an unanswered call may have been executing; later ones never started and simply run. A call that
 * may have been executing runs again when its effect is repeatable (`read_only`, `idempotent`); otherwise
 * (`mutating`, `dangerous`, or a tool no longer known) it is not repeated and its outcome is unknown.
 * A stored checkpoint keeps the model's arguments as written only for the calls this says `run` (see
 * toStoredCheckpoint): a call that must execute after a resume needs to be one of them.
 */
export function resumeActions(
  round: LoopRound,
  effectOf: (name: string) => ToolEffect | undefined,
  isConcurrent: (call: RoundCall) => boolean,
): ResumeAction[] {
  const actions = new Map<RoundCall, ResumeAction>();
  let reachedUnstarted = false;
  for (const batch of toToolBatches(round.calls, isConcurrent)) {
    // A call still waiting for approval never started: the calls after it may have.
    const unanswered = batch.items.filter(
      (item) => item.answer === undefined && item.skipResponse === undefined && item.approval !== 'pending',
    );
    for (const item of batch.items) {
      if (item.answer !== undefined) actions.set(item, 'answered');
      else if (reachedUnstarted || item.skipResponse !== undefined || item.approval === 'pending') {
        actions.set(item, 'run');
      } else {
        actions.set(item, isRepeatable(effectOf(item.call.name)) ? 'run' : 'unknown_outcome');
      }
    }
    if (unanswered.length > 0) reachedUnstarted = true;
  }
  return round.calls.map((item) => actions.get(item) as ResumeAction);
}
