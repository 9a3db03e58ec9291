import type { AgentToolCallStatus } from '../shared/tool-call-status';
import type { ToolCall } from '../shared/tool-types';
import type { AgentLoopOptions, LoopToolOutcome } from './agent-loop-options';
import { disabledToolNote, disabledToolResponse, InvalidCallTracker } from './invalid-call-tracker';
import type { AgentLoopCheckpoint, RoundCall } from './loop-checkpoint';
import { RepetitionBreaker, repetitionNote, type RepetitionVerdict } from './repetition-breaker';

export const DEFAULT_MAX_CONSECUTIVE_INVALID = 3;
export const DEFAULT_REPETITION_LIMIT = 3;

const REPEATED_CALL_RESPONSE = 'Not executed: this exact call was already repeated too many times in a row.';
const TOOL_BUDGET_RESPONSE = 'Not executed: the tool call budget for this step is used up.';

type GuardOptions = Pick<
  AgentLoopOptions<LoopToolOutcome>,
  'maxConsecutiveInvalid' | 'repetitionLimit' | 'maxToolCalls'
>;

/**
 * What a call of the loop meets as the model makes it (a disabled tool, one repetition too many, the tool call
 * budget: the loop answers it itself) and as it is answered (repetition and invalid-call notes for the model).
 */
export class CallGuards {
  readonly invalidCalls: InvalidCallTracker;
  readonly repetition: RepetitionBreaker;
  private readonly maxConsecutiveInvalid: number;
  private readonly repetitionLimit: number;
  private readonly maxToolCalls: number | undefined;
  /** Tool calls started (search_tools included). */
  startedToolCalls: number;

  constructor(options: GuardOptions, resume?: AgentLoopCheckpoint) {
    this.maxConsecutiveInvalid = options.maxConsecutiveInvalid ?? DEFAULT_MAX_CONSECUTIVE_INVALID;
    this.repetitionLimit = options.repetitionLimit ?? DEFAULT_REPETITION_LIMIT;
    this.maxToolCalls = options.maxToolCalls;
    this.invalidCalls = new InvalidCallTracker(this.maxConsecutiveInvalid, resume?.invalidCalls);
    this.repetition = new RepetitionBreaker(this.repetitionLimit, resume?.repetition);
    this.startedToolCalls = resume?.startedToolCalls ?? 0;
  }

  /** A call of a new model response as its round holds it: to run, or answered by the loop itself. */
  plan(call: ToolCall): RoundCall {
    if (this.invalidCalls.isDisabled(call.name)) {
      return { call, verdict: 'ok', skipResponse: disabledToolResponse(call.name) };
    }
    const verdict = this.repetition.observe(call);
    if (verdict === 'stop') return { call, verdict, skipResponse: REPEATED_CALL_RESPONSE };
    if (this.maxToolCalls !== undefined && this.startedToolCalls >= this.maxToolCalls) {
      return { call, verdict, skipResponse: TOOL_BUDGET_RESPONSE };
    }
    this.startedToolCalls += 1;
    return { call, verdict };
  }

  /** What the model is told after a call's response: a repetition warning, its tool disabled after invalid calls. */
  notesOn(call: ToolCall, status: AgentToolCallStatus, verdict: RepetitionVerdict): string {
    let notes = '';
    if (verdict === 'warn') notes += repetitionNote(call.name, this.repetitionLimit);
    if (status !== 'skipped' && this.invalidCalls.record(call.name, status)) {
      notes += disabledToolNote(call.name, this.maxConsecutiveInvalid);
    }
    return notes;
  }
}
