import { Deadline } from '../../common/deadline';
import type { RunBudgets, RunLimitStopReason } from '../../runs/run-budgets';
import type { UsageTotals } from '../../runs/run.entity';
import { addUsage, emptyUsage } from '../../runs/usage-totals';
import type { Cost } from '../../llm/model-prices';
import type { TokenUsage } from '../../shared/chat-types';
import { callNeeds } from '../../agent/token-budget';

/** What a run has used so far; stored in its checkpoint so that a resumed run counts on from there. */
export interface MeterTotals {
  usage: UsageTotals;
  tool_calls: number;
  /** Time the run has executed, its waits for people left out (absent in checkpoints older than this field). */
  elapsed_ms?: number;
}

/** The abort reason when one of a run's own budgets ends it. */
export class RunLimitReached extends Error {
  constructor(
    readonly stopReason: RunLimitStopReason,
    /** The run whose budget it is (a child run stopped by its parent's budget is cancelled, not over budget). */
    readonly runId: string,
    message: string,
  ) {
    super(message);
    this.name = 'RunLimitReached';
  }
}

export interface RunMeterOptions {
  runId: string;
  budgets: RunBudgets | null;
  /** When the run first started (epoch ms): its time limit counts from there when `totals` has no `elapsed_ms`. */
  startedAt: number;
  /** The supervisor's signal (or, for a child run, its tool call's): aborting it aborts the meter's. */
  signal: AbortSignal;
  /** Totals an earlier execution of the run stored. */
  totals?: MeterTotals;
  /** The meter of the run that started this one as a workflow tool: everything counted here counts there too. */
  parent?: RunMeter;
}

/**
 * Counts a run's model usage and tool calls as they happen, across all of its nodes and child runs, and ends
 * the run (aborts its signal with RunLimitReached) when a budget is used up: `max_total_tokens` once the
 * total reaches it after a model call, or before a model call whose prompt it cannot hold (see `tokensLeft`,
 * `refuseModelCall`), `max_tool_calls` when one more call would start, `timeout_ms` when the
 * time the run has executed passes it: its executions add up, the time between them (waiting for an approval,
 * queued for a worker, down) is left out.
 */
export class RunMeter {
  readonly usage: UsageTotals;
  private toolCalls: number;
  /** Time the run executed before this execution started, at `executionStart`. */
  private readonly elapsedBefore: number;
  private readonly executionStart = Date.now();
  private readonly deadline: Deadline;
  private readonly budgets: RunBudgets;

  constructor(private readonly options: RunMeterOptions) {
    this.budgets = options.budgets ?? {};
    this.usage = { ...emptyUsage(), ...options.totals?.usage };
    this.toolCalls = options.totals?.tool_calls ?? 0;
    this.elapsedBefore = options.totals?.elapsed_ms ?? this.executionStart - options.startedAt;
    const limit = this.budgets.timeout_ms;
    const timeoutMs = limit === undefined ? undefined : limit - this.elapsedBefore;
    const timedOut = () =>
      this.limitReached('run_timeout', `the run reached its time limit of ${limit ?? 0} ms (timeout_ms)`);
    this.deadline = new Deadline({ parent: options.signal, timeoutMs, timeoutReason: timedOut });
    // A run resumed after its time ran out stops before it does anything.
    if (timeoutMs !== undefined && timeoutMs <= 0) this.deadline.cancel(timedOut());
    this.checkTokens();
  }

  /** The run's signal: aborts on cancel, hand-back, or when a budget of this run (or of a parent run) is used up. */
  get signal(): AbortSignal {
    return this.deadline.signal;
  }

  /** Set when one of this run's own budgets ended it. */
  get stopped(): RunLimitReached | null {
    const reason: unknown = this.signal.reason;
    return reason instanceof RunLimitReached && reason.runId === this.options.runId ? reason : null;
  }

  snapshot(): MeterTotals {
    const elapsedMs = this.elapsedBefore + (Date.now() - this.executionStart);
    return { usage: { ...this.usage }, tool_calls: this.toolCalls, elapsed_ms: elapsedMs };
  }

  /**
   * One model call's usage (a summary's counts no call) and its cost (null: no known price; absent: not priced);
   * ends the run once its tokens reach `max_total_tokens` or its cost `max_cost`.
   */
  addModelCall(usage: TokenUsage, modelCalls = 1, cost?: Cost | null): void {
    this.add({
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
      total_tokens: usage.totalTokens,
      model_calls: modelCalls,
      ...(cost !== undefined && { cost }),
    });
  }

  /** Tokens the run may still use: the least its own and its parent runs' `max_total_tokens` leave; undefined: none set. */
  tokensLeft(): number | undefined {
    const max = this.budgets.max_total_tokens;
    const own = max === undefined ? undefined : max - this.usage.total_tokens;
    const parent = this.options.parent?.tokensLeft();
    if (own === undefined) return parent;
    return parent === undefined ? own : Math.min(own, parent);
  }

  /**
   * Ends the run whose budget leaves the least (this one, or a parent run: then this one is cancelled with it)
   * with run_token_budget: a model call whose prompt needs about `promptTokens` (and `addedOutputTokens` of the
   * protocol's own, such as a thinking budget) does not fit what is left, so it is not made.
   */
  refuseModelCall(promptTokens: number, addedOutputTokens = 0): void {
    const parent = this.options.parent;
    const parentLeft = parent?.tokensLeft();
    const max = this.budgets.max_total_tokens;
    if (parent && parentLeft !== undefined && (max === undefined || parentLeft < max - this.usage.total_tokens)) {
      parent.refuseModelCall(promptTokens, addedOutputTokens);
      return;
    }
    if (max === undefined || this.signal.aborted) return;
    const left = Math.max(0, max - this.usage.total_tokens);
    const message = `the next model call does not fit the run's budget of ${max} tokens (max_total_tokens): ${callNeeds(promptTokens, addedOutputTokens)}, and ${left} are left`;
    this.deadline.cancel(this.limitReached('run_token_budget', message));
  }

  /**
   * Counts a tool call about to start. False (and the run ends) when it would be one more than
   * `max_tool_calls` here or in a parent run, or when the run is already stopping: the call must not start.
   */
  startToolCall(): boolean {
    if (this.signal.aborted) return false;
    const max = this.budgets.max_tool_calls;
    if (max !== undefined && this.toolCalls >= max) {
      const message = `the run used up its tool call budget: ${max} calls (max_tool_calls)`;
      this.deadline.cancel(this.limitReached('run_tool_call_budget', message));
      return false;
    }
    if (this.options.parent && !this.options.parent.startToolCall()) return false;
    this.toolCalls += 1;
    return true;
  }

  dispose(): void {
    this.deadline.dispose();
  }

  private add(usage: UsageTotals): void {
    addUsage(this.usage, usage);
    this.options.parent?.add(usage);
    this.checkTokens();
    this.checkCost();
  }

  private checkCost(): void {
    const max = this.budgets.max_cost;
    const cost = this.usage.cost;
    if (max === undefined || cost === undefined || this.signal.aborted) return;
    if (cost === null) {
      const message = `a model call's cost is unknown (its model has no price; see GET /providers), so the run's budget of ${max} (max_cost) cannot be kept`;
      this.deadline.cancel(this.limitReached('run_cost_budget', message));
    } else if (cost.amount >= max) {
      const message = `the run cost ${cost.amount} ${cost.currency}, reaching its budget of ${max} (max_cost)`;
      this.deadline.cancel(this.limitReached('run_cost_budget', message));
    }
  }

  private checkTokens(): void {
    const max = this.budgets.max_total_tokens;
    if (max === undefined || this.usage.total_tokens < max || this.signal.aborted) return;
    const message = `the run used ${this.usage.total_tokens} tokens, reaching its budget of ${max} (max_total_tokens)`;
    this.deadline.cancel(this.limitReached('run_token_budget', message));
  }

  private limitReached(stopReason: RunLimitStopReason, message: string): RunLimitReached {
    return new RunLimitReached(stopReason, this.options.runId, message);
  }
}
