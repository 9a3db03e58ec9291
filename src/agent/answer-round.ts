import type { ChatMessage } from '../shared/chat-types';
import type { AbortScope } from './abort-scope';
import type { AgentLoopOptions, LoopToolOutcome } from './agent-loop-options';
import { AwaitingApprovalError } from './approval-gate';
import type { CallAnswer, ToolCallExecutor } from './execute-tool-call';
import { type LoopRound, type ResumeAction, type RoundCall, UNKNOWN_OUTCOME_RESPONSE } from './loop-checkpoint';
import type { RoundState } from './round-state';
import { runToolBatches } from './tool-batches';

/** What answering a round needs of the loop it belongs to. */
export interface RoundAnsweringHost<O extends LoopToolOutcome> {
  options: Pick<AgentLoopOptions<O>, 'approvals' | 'onUnrunCall'>;
  scope: AbortScope;
  executor: ToolCallExecutor<O>;
  /** Whether the call may run at the same time as its concurrent neighbours. */
  isConcurrent(item: RoundCall): boolean;
  /** Whether running the call twice is harmless (`read_only`, `idempotent`): it may start before its round is stored. */
  isRepeatable(item: RoundCall): boolean;
  /** What a loop resumed from a checkpoint of `round` would do with each of its calls (see resumeActions). */
  resumeActionsOf(round: LoopRound): ResumeAction[];
  /** Stores the loop's whole state (the round included). */
  checkpoint(): Promise<void>;
}

/**
 * Answers the calls of a round in call order, through the round's state machine: asks `approvals` first, then
 * runs the calls batch after batch (see runToolBatches), checkpointing each new answer before the next call starts.
 * The answers of the round's last batch are stored while the model is called again and, when the next round's calls
 * may all run twice without harm, while those run too; so is that round's own checkpoint (`planned`). A crash before
 * these writes land makes the resumed loop go on from the state before them: it asks the model again and runs such
 * calls again, as if it had crashed during the model call. Any other call waits for the writes, and no round ends
 * before they are stored (a failed write fails the round, and the model is not asked again).
 */
export class RoundAnswering<O extends LoopToolOutcome> {
  /** Checkpoints still being stored: the last answers of a round, and the checkpoint of a round that started unstored. */
  private storing: Promise<void>[] = [];

  constructor(private readonly host: RoundAnsweringHost<O>) {}

  /**
   * Every runnable call's answer, in call order. Throws AwaitingApprovalError (once the others are answered and
   * the state is checkpointed) while a call waits for a person.
   */
  async answer(round: RoundState, snapshot: readonly ChatMessage[], planned?: Promise<void>): Promise<CallAnswer[]> {
    // Awaited below or, when a call fails first, by settled(); until then a failure must not count as unhandled.
    planned?.catch(() => undefined);
    if (planned) this.storing.push(planned);
    // The writes still going on when the round starts: the previous round's last answers, this round's checkpoint.
    const earlier = [...this.storing];
    round.start((stored) => this.host.resumeActionsOf(stored));
    const waiting = await this.decideApprovals(round);
    if (!this.mayStartUnstored(round)) await Promise.all(earlier);
    const answered = await runToolBatches(
      round.runnable(),
      (item) => this.host.isConcurrent(item),
      (item, lastBatch) => this.answerCall(round, item, snapshot, lastBatch),
    );
    await Promise.all(earlier);
    this.storing = this.storing.filter((storing) => !earlier.includes(storing));
    if (waiting) {
      this.host.scope.throwIfAborted();
      await this.host.checkpoint();
      throw new AwaitingApprovalError();
    }
    return answered;
  }

  /** Whether every call to run may run before the writes before it are stored: repeatable, no person's decision. */
  private mayStartUnstored(round: RoundState): boolean {
    return round
      .runnable()
      .every(
        (item) =>
          item.answer !== undefined ||
          item.skipResponse !== undefined ||
          (item.approval === undefined && this.host.isRepeatable(item)),
      );
  }

  /** Waits for the checkpoints still being stored; throws when one failed. */
  async stored(): Promise<void> {
    await Promise.all(this.storing.splice(0));
  }

  /** Waits for the checkpoints still being stored, whatever their outcome (the loop is ending on an error). */
  async settled(): Promise<void> {
    await Promise.allSettled(this.storing.splice(0));
  }

  /**
   * Asks `approvals` about each call of the round that may wait for a person; true while one still waits. A
   * decided call (or a waiting one the gate no longer holds) is checkpointed as approved (or answered as rejected)
   * before it starts, so that a crash while it runs does not repeat it.
   */
  private async decideApprovals(round: RoundState): Promise<boolean> {
    const gate = this.host.options.approvals;
    if (!gate) return false;
    let waiting = false;
    let decided = false;
    for (const item of round.calls) {
      if (item.answer !== undefined || item.skipResponse !== undefined || item.approval === 'approved') continue;
      const decision = await gate.check(item.call);
      if (decision === null) {
        // A call that waited and needs no decision now (say its tool stopped asking for one) runs like any other;
        // left waiting, it would be missing from the answers while the loop went on. Stored as cleared to run.
        if (item.approval === 'pending') {
          round.approve(item);
          decided = true;
        }
        continue;
      }
      if (decision === 'pending') {
        round.awaitApproval(item);
        waiting = true;
      } else if (decision.approved) {
        round.approve(item, decision.arguments);
        decided = true;
      } else {
        await this.host.options.onUnrunCall?.(item.call, 'rejected', decision.response);
        round.reject(item, decision.response);
        decided = true;
      }
    }
    if (decided && !waiting) await this.host.checkpoint();
    return waiting;
  }

  /**
   * One call's answer: stored, run, or (after a resume) not repeated; a new answer is checkpointed before the next
   * call starts, except in the round's last batch, whose checkpoints are kept for `stored`.
   */
  private async answerCall(
    round: RoundState,
    item: RoundCall,
    snapshot: readonly ChatMessage[],
    lastBatch: boolean,
  ): Promise<CallAnswer> {
    const { executor, scope } = this.host;
    if (item.answer) return { call: item.call, ...item.answer };
    // A call the loop answers itself gets the same answer again after a resume: nothing to store.
    if (item.skipResponse !== undefined) return executor.execute(item, snapshot);
    let answered: CallAnswer;
    if (round.actionOf(item) === 'unknown_outcome') {
      await this.host.options.onUnrunCall?.(item.call, 'unknown_outcome', UNKNOWN_OUTCOME_RESPONSE);
      answered = { call: item.call, status: 'unknown_outcome', response: UNKNOWN_OUTCOME_RESPONSE, durationMs: 0 };
    } else {
      answered = await executor.execute(item, snapshot);
    }
    // An answer made while the loop stops (cancel, hand-back) is not stored: a resumed loop decides again.
    if (scope.signal.aborted) return answered;
    round.answer(item, answered);
    const storing = this.host.checkpoint();
    if (!lastBatch) {
      await storing;
      return answered;
    }
    // Awaited by stored(); until then a failure must not count as unhandled.
    storing.catch(() => undefined);
    this.storing.push(storing);
    return answered;
  }
}
