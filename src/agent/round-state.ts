import type { MalformedToolCall } from '../llm/provider';
import type { LoopRound, ResumeAction, RoundAnswer, RoundCall } from './loop-checkpoint';

/**
 * Where one call of a round is. A call the loop answers itself (`skipped`: a disabled tool, a repeated call, the
 * tool call budget) never changes phase; the others go `to_run` → (`awaiting_approval` →) (`approved` →)
 * `answered`, a rejected call straight to `answered`.
 */
export type RoundCallPhase = 'skipped' | 'to_run' | 'awaiting_approval' | 'approved' | 'answered';

const ALLOWED: Readonly<Record<RoundCallPhase, readonly RoundCallPhase[]>> = {
  skipped: [],
  to_run: ['awaiting_approval', 'approved', 'answered'],
  awaiting_approval: ['awaiting_approval', 'approved', 'answered'],
  approved: ['answered'],
  answered: [],
};

export const phaseOf = (item: RoundCall): RoundCallPhase => {
  if (item.answer !== undefined) return 'answered';
  if (item.skipResponse !== undefined) return 'skipped';
  if (item.approval === 'pending') return 'awaiting_approval';
  return item.approval === 'approved' ? 'approved' : 'to_run';
};

export class RoundTransitionError extends Error {
  constructor(item: RoundCall, to: RoundCallPhase) {
    super(`Tool call ${item.call.id} cannot go from ${phaseOf(item)} to ${to}`);
    this.name = 'RoundTransitionError';
  }
}

/**
 * The calls of one model response, from that response until every one is answered: the only place a call of the
 * round changes phase (see RoundCallPhase), each change checked. A round read back from a checkpoint is `resumed`:
 * until it starts (`start`), what happens to each call is decided by its caller (see resumeActions); a new round
 * runs every call.
 */
export class RoundState {
  private actions: ReadonlyMap<RoundCall, ResumeAction> | null = null;

  private constructor(
    private readonly round: LoopRound,
    readonly resumed: boolean,
  ) {}

  /** The round of a new model response. */
  static planned(calls: RoundCall[], malformed: MalformedToolCall[]): RoundState {
    return new RoundState({ calls, malformed }, false);
  }

  /** A round stored in a checkpoint: some of its calls may have been executing when it was stored. */
  static resumed(round: LoopRound): RoundState {
    return new RoundState(round, true);
  }

  get calls(): readonly RoundCall[] {
    return this.round.calls;
  }

  get malformed(): readonly MalformedToolCall[] {
    return this.round.malformed;
  }

  /**
   * Fixes what each call does in this pass over the round: `decide` is asked once, for a resumed round only (a new
   * round runs every call). Called once, as the round starts being answered.
   */
  start(decide: (round: LoopRound) => ResumeAction[]): void {
    if (this.actions !== null) throw new Error('The round has already started');
    const actions: ResumeAction[] = this.resumed ? decide(this.round) : this.round.calls.map(() => 'run');
    this.actions = new Map(this.round.calls.map((item, index) => [item, actions[index]]));
  }

  /** What the call does in this pass (`run` until the round starts). */
  actionOf(item: RoundCall): ResumeAction {
    return this.actions?.get(item) ?? 'run';
  }

  /** The call waits for a person's decision. */
  awaitApproval(item: RoundCall): void {
    this.move(item, 'awaiting_approval');
    item.approval = 'pending';
  }

  /** A person approved the call; `editedArguments` replace the model's when the person changed them. */
  approve(item: RoundCall, editedArguments?: string): void {
    this.move(item, 'approved');
    item.approval = 'approved';
    if (editedArguments !== undefined) item.approvedArguments = editedArguments;
  }

  /** A person rejected the call: it is answered without running. */
  reject(item: RoundCall, response: string): void {
    this.move(item, 'answered');
    delete item.approval;
    item.answer = { status: 'rejected', response, durationMs: 0 };
  }

  /** The call ran (or, after a resume, was answered as an unknown outcome). */
  answer(item: RoundCall, answer: RoundAnswer): void {
    this.move(item, 'answered');
    item.answer = {
      status: answer.status,
      response: answer.response,
      durationMs: answer.durationMs,
      ...(answer.repair && { repair: answer.repair }),
    };
  }

  /** The calls that may be answered now: every one but those waiting for a person. */
  runnable(): RoundCall[] {
    return this.round.calls.filter((item) => phaseOf(item) !== 'awaiting_approval');
  }

  /** A call of the round was refused as one repetition too many: the loop stops repeating. */
  get stoppedRepetition(): boolean {
    return this.round.calls.some((item) => item.verdict === 'stop');
  }

  /** A copy for a checkpoint: later changes of phase do not reach it. */
  toCheckpoint(): LoopRound {
    return { ...this.round, calls: this.round.calls.map((item) => ({ ...item })) };
  }

  private move(item: RoundCall, to: RoundCallPhase): void {
    if (!ALLOWED[phaseOf(item)].includes(to)) throw new RoundTransitionError(item, to);
  }
}
