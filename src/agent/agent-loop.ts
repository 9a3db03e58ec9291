import type { ChatMessage } from '../shared/chat-types';
import type { ChatRequest, ChatResponse } from '../llm/provider';
import type { FunctionTool, ToolCall } from '../shared/tool-types';
import { AbortScope } from './abort-scope';
import { AwaitingApprovalError } from './approval-gate';
import { AgentLoopError } from './agent-loop-error';
import type { AgentLoopOptions, LoopToolOutcome } from './agent-loop-options';
import type { AgentLoopResult, AgentToolCallRecord } from './agent-loop-result';
import { AnswerRetries } from './answer-check';
import { RoundAnswering } from './answer-round';
import { toAssistantMessage } from './assistant-message';
import { fallbackAnswer, requestFinalAnswer } from './final-answer';
import { isValidCallStatus } from './invalid-call-tracker';
import { malformedCallsNote } from './malformed-calls-note';
import type { RepetitionVerdict } from './repetition-breaker';
import { answerStopReason, type AgentStopReason, type LimitStopReason } from './stop-reason';
import { clampIterations, firstStop, loopStopConditions, type StopCondition } from './stop-condition';
import { satisfiesToolChoice, selectToolOffer } from './tool-offer';
import { ContextFitter, DEFAULT_RESERVED_OUTPUT_TOKENS } from './fit-context';
import { RequestTokenCounter } from './request-tokens';
import { NodeTokenBudgetRefusal } from './token-budget';
import { LoopTokenBudget } from './loop-token-budget';
import type { AgentLoopCheckpoint, RoundAnswer } from './loop-checkpoint';
import { RoundState } from './round-state';
import { toStoredCheckpoint } from './stored-checkpoint';
import { truncate } from '../shared/truncate';
import { errorMessage } from '../shared/error-text';
import { type CallAnswer, ToolCallExecutor } from './execute-tool-call';
import { ModelCalls } from './model-calls';
import { baseRequest } from './loop-request';
import { CallGuards } from './call-guards';
import { LoopTools } from './loop-tools';

export { AgentLoopError } from './agent-loop-error';
export type * from './agent-loop-options';
export type * from './agent-loop-result';
export type { AgentStopReason } from './stop-reason';
export type { AgentLoopCheckpoint } from './loop-checkpoint';
export { AwaitingApprovalError, type ApprovalDecision, type ApprovalGate } from './approval-gate';

export { DEFAULT_MAX_ITERATIONS, MAX_ITERATIONS_CAP } from './stop-condition';
export { DEFAULT_MAX_CONSECUTIVE_INVALID, DEFAULT_REPETITION_LIMIT } from './call-guards';
/** Length of `toolCalls[].response` in the result; the model itself always gets the full text. */
export const RECORDED_RESPONSE_MAX_CHARS = 2000;

/**
 * The tool-calling loop of an LLM node.
 *
 * Calls the model with the tools on every iteration, runs the calls it makes (consecutive `read_only`
 * calls concurrently, all others one at a time) and answers each call id with one tool message in call
 * order, until the model answers without calling tools. Tool failures of every kind go back to the model
 * as the tool's response; a tool that gets `maxConsecutiveInvalid` invalid calls in a row is disabled
 * (told to the model, no longer offered or forced). Malformed calls (no name) stay out of the assistant
 * message, since providers reject an empty function name, and are reported in a user message instead.
 *
 * Limits end the tool phase with a stop reason: `max_iterations` (model calls that requested tools),
 * `budget_tool_calls`, `budget_tokens` and `repetition` make one last call with `tool_choice: none`
 * (tools still sent, so the history stays valid) and return its text, or a fallback explaining the
 * limit when it wrote none. `timeout` skips that call (time is out) and returns the explanation.
 *
 * Token budgets (`maxTotalTokens`, `runTokens`) are checked before every model call as well as after it: a call
 * whose prompt they cannot hold (with a short answer) is not made, any other has its `maxTokens` capped to what
 * is left after its prompt (see decideTokenBudget). A call the node's budget refuses ends the loop with
 * `budget_tokens`, and its final call is made only if that one fits, else the fallback says why.
 *
 * Durability lives in hooks: `onCheckpoint` gets the loop's whole state after every model response that
 * requested tools and after every tool result (the results of a round's last batch are stored while the model
 * is called again: no call starts before they are, unless every call of the next round may run twice without harm,
 * see RoundAnswering, and the loop goes on only once they are); `resume` continues
 * from such a state, never repeating a stored model response or tool result (see `resumeActions` for calls
 * that were executing). A call that `approvals` holds for a person stops the loop with AwaitingApprovalError
 * once the round's other calls are answered and checkpointed; resumed after the decision, the loop runs it (or
 * answers it as rejected).
 *
 * A final answer (the model's own or the one asked for at a limit) that fails `answerCheck` goes back to the
 * model with the check's feedback, at most `answerCheck.retries` times, each announced by `onAnswerRetry`; the
 * last answer is returned whether it passes or not, with `answerRetries` counting the answers sent back.
 *
 * @throws AgentLoopError `cancelled` when `signal` aborts, `max_iterations` with `onMaxIterations: 'fail'`,
 * and `error` when the provider fails (the ProviderError is its `cause`, its message the error's message).
 */
export const runAgentLoop = async <O extends LoopToolOutcome>(
  options: AgentLoopOptions<O>,
): Promise<AgentLoopResult> => {
  const loop = new AgentLoop(options);
  try {
    return await loop.execute();
  } finally {
    loop.dispose();
  }
};

/** One run of the loop (see runAgentLoop): its state between model calls, and the steps that change it. */
class AgentLoop<O extends LoopToolOutcome> {
  private readonly messages: ChatMessage[];
  private readonly tools: LoopTools<O>;
  private readonly scope: AbortScope;
  private readonly tokens = new RequestTokenCounter();
  private readonly models: ModelCalls<O>;
  /** Where the node's prompt is in the history: never left out of a request. */
  private readonly taskIndex: number;
  private readonly guards: CallGuards;
  private readonly maxIterations: number;
  /** When the tool phase ends, checked after each round (see loopStopConditions). */
  private readonly stopWhen: readonly StopCondition[];
  private readonly toolCalls: AgentToolCallRecord[] = [];
  private readonly answerRetries: AnswerRetries;
  private readonly answering: RoundAnswering<O>;
  private iterationsUsed = 0;
  private forcing = true;
  /** The round being answered (a checkpoint's, or the last model response's); null between rounds. */
  private round: RoundState | null = null;

  constructor(private readonly options: AgentLoopOptions<O>) {
    const resume = options.resume;
    this.messages = [...(resume?.messages ?? options.messages)];
    this.tools = new LoopTools(options);
    this.scope = new AbortScope(options.signal, options.timeoutMs);
    const budget = new LoopTokenBudget({
      maxTotalTokens: options.maxTotalTokens,
      runTokens: options.runTokens,
      provider: options.provider,
      used: () => this.models.usage.totalTokens,
      tokens: this.tokens,
      throwIfAborted: () => this.scope.throwIfAborted(),
    });
    this.taskIndex = options.messages.findLastIndex((message) => message.role === 'user');
    const fitter = this.contextFitter();
    this.models = new ModelCalls({ options, scope: this.scope, budget, fitter, taskIndex: this.taskIndex });
    this.maxIterations = clampIterations(options.maxIterations);
    this.stopWhen = loopStopConditions({ ...options, maxIterations: this.maxIterations });
    this.guards = new CallGuards(options, resume);
    this.answerRetries = new AnswerRetries(options.answerCheck, resume?.answerRetries);
    const executor = new ToolCallExecutor({
      options,
      scope: this.scope,
      selection: this.tools.selection,
      offeredNames: () => new Set(this.offeredSchemas().map((schema) => schema.function.name)),
      prepareSelection: (query) => this.prepareSelection(query),
      task: () => this.options.messages[this.taskIndex]?.content ?? '',
      fitSummary: (request) => budget.forSummary(request),
      countSummary: (usage, model) => this.models.countSummary(usage, model),
    });
    this.answering = new RoundAnswering({
      options,
      scope: this.scope,
      executor,
      isConcurrent: (item) => this.tools.isConcurrent(item),
      isRepeatable: (item) => this.tools.isRepeatable(item),
      resumeActionsOf: (round) => this.tools.resumeActionsOf(round),
      checkpoint: () => this.checkpoint(),
    });
    if (resume) {
      this.toolCalls.push(...resume.toolCalls);
      Object.assign(this.models.usage, resume.usage);
      this.iterationsUsed = resume.iterationsUsed;
      this.forcing = resume.forcing;
      this.round = resume.round && RoundState.resumed(resume.round);
    }
  }

  /** Keeps each request within `contextWindow` minus the output tokens it asks for; none without a window. */
  private contextFitter(): ContextFitter | undefined {
    const { contextWindow, maxTokens, reasoningEffort, provider } = this.options;
    if (contextWindow === undefined) return undefined;
    const reservedTokens =
      provider.outputTokens?.({ maxTokens, reasoningEffort }) ??
      maxTokens ??
      Math.min(DEFAULT_RESERVED_OUTPUT_TOKENS, Math.floor(contextWindow / 4));
    return new ContextFitter({ contextWindow, reservedTokens }, this.tokens);
  }

  async execute(): Promise<AgentLoopResult> {
    try {
      const result = await this.loop();
      await this.answering.stored();
      return result;
    } catch (error) {
      // Every write is over before the loop ends: a run handed back must not be stored after another process resumed it.
      await this.answering.settled();
      return this.fail(error);
    }
  }

  dispose(): void {
    this.scope.dispose();
  }

  private async loop(): Promise<AgentLoopResult> {
    if (this.round) {
      const limit = await this.answerRound(this.round);
      if (limit) return this.finish(limit);
    }
    for (;;) {
      await this.prepareSelection();
      let response: ChatResponse;
      try {
        response = await this.models.call(this.nextRequest(), true);
      } catch (error) {
        if (error instanceof NodeTokenBudgetRefusal) return this.finish('budget_tokens');
        throw error;
      }
      const assistant = toAssistantMessage(response);
      if (assistant) this.messages.push(assistant);
      if (response.toolCalls.length === 0 && response.malformedToolCalls.length === 0) {
        await this.answering.stored();
        if (this.sendBack(response.content)) continue;
        return this.result(response.content, answerStopReason(response.finishReason));
      }
      this.iterationsUsed += 1;
      this.round = RoundState.planned(
        response.toolCalls.map((call) => this.guards.plan(call)),
        response.malformedToolCalls,
      );
      const limit = await this.answerRound(this.round, this.checkpoint());
      if (limit) return this.finish(limit);
    }
  }

  private snapshot(): AgentLoopCheckpoint {
    const state: AgentLoopCheckpoint = {
      messages: [...this.messages],
      toolCalls: [...this.toolCalls],
      usage: { ...this.models.usage },
      iterationsUsed: this.iterationsUsed,
      startedToolCalls: this.guards.startedToolCalls,
      forcing: this.forcing,
      invalidCalls: this.guards.invalidCalls.state,
      repetition: this.guards.repetition.state,
      round: this.round && this.round.toCheckpoint(),
      ...(this.answerRetries.count > 0 ? { answerRetries: this.answerRetries.count } : {}),
    };
    // Only the calls a resumed loop would execute keep the arguments as written, until they are answered.
    const actions = state.round ? this.tools.resumeActionsOf(state.round) : [];
    return toStoredCheckpoint(
      state,
      (item, index) => item.skipResponse === undefined && actions[index] === 'run',
      this.tools.secretArguments,
    );
  }

  private async checkpoint(): Promise<void> {
    if (this.options.onCheckpoint) await this.options.onCheckpoint(this.snapshot());
  }

  /** Embeds the query of the next call when the selection uses embeddings (once per query). */
  private async prepareSelection(query?: string): Promise<void> {
    const { selection } = this.tools;
    if (selection?.usesEmbeddings) {
      await this.scope.race(selection.prepare(this.messages, this.scope.signal, query));
    }
  }

  private nextRequest(): ChatRequest {
    const offer = selectToolOffer({
      tools: this.offeredSchemas(),
      disabled: this.guards.invalidCalls.disabled,
      toolChoice: this.options.toolChoice,
      forcing: this.forcing,
    });
    const { parallelToolCalls } = this.options;
    return {
      ...baseRequest(this.options),
      messages: [...this.messages],
      ...offer,
      ...(offer.tools && parallelToolCalls !== undefined ? { parallelToolCalls } : {}),
    };
  }

  private offeredSchemas(): FunctionTool[] {
    return this.tools.offered(this.messages, this.forcing);
  }

  /** Sends a final answer that fails `answerCheck` back to the model (see AnswerCheck); false: it stands. */
  private sendBack(answer: string): boolean {
    const next = this.answerRetries.next(answer);
    if (next === null) return false;
    this.messages.push(next.message);
    this.options.hooks?.onAnswerRetry?.(next.retry);
    return true;
  }

  /**
   * Answers every call of the round in call order (see RoundAnswering) and gives the model their results; returns
   * the limit the loop reached, if any (see `stopWhen`). `planned`: the round's checkpoint, being stored.
   */
  private async answerRound(round: RoundState, planned?: Promise<void>): Promise<LimitStopReason | null> {
    const answered = await this.answering.answer(round, [...this.messages], planned);
    answered.forEach((item, index) => this.settle(item, round.calls[index].verdict));
    for (const malformed of round.malformed) {
      const call = { id: malformed.id, name: '', arguments: malformed.arguments };
      this.record(call, { status: 'malformed', response: malformed.reason, durationMs: 0 });
    }
    if (round.malformed.length > 0) {
      this.messages.push({ role: 'user', content: malformedCallsNote(round.malformed) });
    }
    this.round = null;
    this.scope.throwIfAborted();
    return this.reachedLimit(round);
  }

  private settle({ call, status, response, durationMs, repair }: CallAnswer, verdict: RepetitionVerdict): void {
    const content = response + this.guards.notesOn(call, status, verdict);
    if (isValidCallStatus(status) && satisfiesToolChoice(this.options.toolChoice, call.name)) this.forcing = false;
    this.messages.push({
      role: 'tool',
      tool_call_id: call.id,
      content,
      ...(status === 'success' ? {} : { is_error: true }),
    });
    this.record(call, { status, response: content, durationMs, repair: repair ?? call.repair });
  }

  private record(call: ToolCall, { status, response, durationMs, repair }: RoundAnswer): void {
    this.toolCalls.push({
      id: call.id,
      name: call.name,
      arguments: call.arguments,
      status,
      response: truncate(response, RECORDED_RESPONSE_MAX_CHARS),
      duration_ms: durationMs,
      ...(repair !== undefined && { repair: { kind: repair.kind } }),
    });
  }

  private reachedLimit(round: RoundState): LimitStopReason | null {
    const progress = {
      iterations: this.iterationsUsed,
      startedToolCalls: this.guards.startedToolCalls,
      totalTokens: this.models.usage.totalTokens,
      stoppedRepetition: round.stoppedRepetition,
    };
    return firstStop(this.stopWhen, progress);
  }

  private async finish(reason: LimitStopReason): Promise<AgentLoopResult> {
    if (reason === 'max_iterations' && this.options.onMaxIterations === 'fail') {
      const message = `The agent reached its limit of ${this.maxIterations} tool-using iterations`;
      throw new AgentLoopError(message, 'max_iterations', this.result(fallbackAnswer(reason), reason, message));
    }
    await this.prepareSelection();
    let final;
    try {
      do {
        final = await requestFinalAnswer({
          reason,
          history: this.messages,
          tools: this.offeredSchemas(),
          base: baseRequest(this.options),
          callModel: (request) => this.models.call(request),
        });
        this.messages.push(...final.appended);
      } while (this.sendBack(final.output));
    } catch (error) {
      if (!(error instanceof NodeTokenBudgetRefusal)) throw error;
      // The budget holds: no final call past it; the output says why there is no answer.
      return this.result(`${fallbackAnswer('budget_tokens')} ${error.message}`, 'budget_tokens', error.message);
    }
    return this.result(final.output, reason);
  }

  private fail(error: unknown): AgentLoopResult {
    if (error instanceof AgentLoopError || error instanceof AwaitingApprovalError) throw error;
    if (this.scope.cause === 'timeout') {
      const message = `The agent stopped after its time limit of ${this.options.timeoutMs ?? 0} ms`;
      return this.result(fallbackAnswer('timeout'), 'timeout', message);
    }
    if (this.scope.cause === 'cancelled') {
      throw new AgentLoopError('The agent loop was cancelled', 'cancelled', this.result('', 'cancelled', 'Cancelled'));
    }
    const message = errorMessage(error);
    throw new AgentLoopError(message, 'error', this.result('', 'error', message), { cause: error });
  }

  private result(output: string, stopReason: AgentStopReason, error?: string): AgentLoopResult {
    return {
      output,
      stopReason,
      iterationsUsed: this.iterationsUsed,
      toolCalls: [...this.toolCalls],
      usage: { ...this.models.usage },
      reasoning: this.models.reasoning.join('\n\n'),
      messages: [...this.messages],
      answerRetries: this.answerRetries.count,
      ...(error !== undefined ? { error } : {}),
    };
  }
}
