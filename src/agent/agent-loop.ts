import { addCosts, type Cost } from '../llm/model-prices';
import type { ChatMessage, TokenUsage } from '../shared/chat-types';
import type { ChatRequest, ChatResponse, ChatStreamEvent } from '../llm/provider';
import type { FunctionTool, ToolCall, ToolEffect } from '../shared/tool-types';
import { AbortScope } from './abort-scope';
import { AwaitingApprovalError } from './approval-gate';
import { AgentLoopError } from './agent-loop-error';
import type { AgentLoopOptions, ToolCallOutcomeLike } from './agent-loop-options';
import { announceRepairedCalls } from './repaired-calls';
import type { AgentLoopResult, AgentLoopUsage, AgentToolCallRecord } from './agent-loop-result';
import { AnswerRetries } from './answer-check';
import { toAssistantMessage } from './assistant-message';
import { fallbackAnswer, requestFinalAnswer } from './final-answer';
import { disabledToolNote, disabledToolResponse, InvalidCallTracker, isValidCallStatus } from './invalid-call-tracker';
import { malformedCallsNote } from './malformed-calls-note';
import { RepetitionBreaker, repetitionNote, type RepetitionVerdict } from './repetition-breaker';
import { answerStopReason, type AgentStopReason, type LimitStopReason } from './stop-reason';
import { firstStop, type StopCondition, stepCountIs, toolCallCountIs, totalTokensReach } from './stop-condition';
import { forwardStreamEvents } from './stream-event-forwarder';
import { runToolBatches } from './tool-batches';
import { satisfiesToolChoice, selectToolOffer } from './tool-offer';
import { CUT_NOTE_START } from './cut-tool-result';
import { READ_TOOL_RESULT, readToolResultSchema } from './read-tool-result';
import { SEARCH_TOOLS, searchToolsSchema, type ToolSelection } from './selection/tool-selection';
import { ContextFitter, DEFAULT_RESERVED_OUTPUT_TOKENS } from './fit-context';
import { RequestTokenCounter } from './request-tokens';
import { NodeTokenBudgetRefusal } from './token-budget';
import { LoopTokenBudget } from './loop-token-budget';
import {
  type AgentLoopCheckpoint,
  type LoopRound,
  type ResumeAction,
  resumeActions,
  type RoundAnswer,
  type RoundCall,
  UNKNOWN_OUTCOME_RESPONSE,
} from './loop-checkpoint';
import { toStoredCheckpoint } from './stored-checkpoint';
import { secretArgumentNames } from '../shared/argument-secrets';
import { truncate } from '../shared/truncate';
import { errorMessage } from '../shared/error-text';
import { type CallAnswer, ToolCallExecutor } from './execute-tool-call';

export { AgentLoopError } from './agent-loop-error';
export type * from './agent-loop-options';
export type * from './agent-loop-result';
export type { AgentStopReason } from './stop-reason';
export type { AgentLoopCheckpoint } from './loop-checkpoint';
export { AwaitingApprovalError, type ApprovalDecision, type ApprovalGate } from './approval-gate';

export const DEFAULT_MAX_ITERATIONS = 5;
export const MAX_ITERATIONS_CAP = 50;
export const DEFAULT_MAX_CONSECUTIVE_INVALID = 3;
export const DEFAULT_REPETITION_LIMIT = 3;
/** Length of `toolCalls[].response` in the result; the model itself always gets the full text. */
export const RECORDED_RESPONSE_MAX_CHARS = 2000;

const REPEATED_CALL_RESPONSE = 'Not executed: this exact call was already repeated too many times in a row.';
const TOOL_BUDGET_RESPONSE = 'Not executed: the tool call budget for this step is used up.';

const clampIterations = (value: number | undefined): number =>
  value === undefined || !Number.isFinite(value)
    ? DEFAULT_MAX_ITERATIONS
    : Math.min(MAX_ITERATIONS_CAP, Math.max(1, Math.floor(value)));

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
 * is called again: no call starts before they are, and the loop ends only once they are); `resume` continues
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
export const runAgentLoop = async <O extends ToolCallOutcomeLike>(
  options: AgentLoopOptions<O>,
): Promise<AgentLoopResult> => {
  const run = new AgentLoopRun(options);
  try {
    return await run.execute();
  } finally {
    run.dispose();
  }
};

class AgentLoopRun<O extends ToolCallOutcomeLike> {
  private readonly messages: ChatMessage[];
  private readonly schemas: FunctionTool[];
  /** The argument names the tools' schemas declare secret: masked in checkpoints like credential names. */
  private readonly secretArguments: ReadonlySet<string>;
  private readonly effects: Map<string, ToolEffect>;
  private readonly selection: ToolSelection | undefined;
  private readonly scope: AbortScope;
  private readonly fitter: ContextFitter | undefined;
  private readonly tokens = new RequestTokenCounter();
  private readonly budget: LoopTokenBudget;
  /** Where the node's prompt is in the history: never left out of a request. */
  private readonly taskIndex: number;
  private readonly invalidCalls: InvalidCallTracker;
  private readonly repetition: RepetitionBreaker;
  private readonly maxIterations: number;
  /** When the tool phase ends, checked after each round: the budgets in the options, then the step count. */
  private readonly stopWhen: readonly StopCondition[];
  private readonly maxConsecutiveInvalid: number;
  private readonly repetitionLimit: number;
  private readonly toolCalls: AgentToolCallRecord[] = [];
  private readonly usage: AgentLoopUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, modelCalls: 0 };
  private readonly reasoning: string[] = [];
  private readonly answerRetries: AnswerRetries;
  private readonly callExecutor: ToolCallExecutor<O>;
  private iterationsUsed = 0;
  private startedToolCalls = 0;
  private forcing = true;
  private round: LoopRound | null = null;
  /** The round came from a checkpoint: some of its calls may have been executing when the state was stored. */
  private resumedRound = false;
  /** Checkpoints of the round's last answers, stored while the model is called again (see answer()). */
  private storing: Promise<void>[] = [];

  constructor(private readonly options: AgentLoopOptions<O>) {
    const resume = options.resume;
    this.messages = [...(resume?.messages ?? options.messages)];
    this.schemas = options.tools.map((tool) => tool.schema);
    this.secretArguments = secretArgumentNames(...this.schemas.map((schema) => schema.function.parameters));
    this.effects = new Map(options.tools.map((tool) => [tool.schema.function.name, tool.effect]));
    if (options.toolResults) this.effects.set(READ_TOOL_RESULT, 'read_only');
    const selection = options.toolSelection;
    this.selection = selection !== undefined && this.schemas.length > selection.maxTools ? selection : undefined;
    if (this.selection) this.effects.set(SEARCH_TOOLS, 'read_only');
    this.scope = new AbortScope(options.signal, options.timeoutMs);
    this.budget = new LoopTokenBudget({
      maxTotalTokens: options.maxTotalTokens,
      runTokens: options.runTokens,
      provider: options.provider,
      used: () => this.usage.totalTokens,
      tokens: this.tokens,
      throwIfAborted: () => this.scope.throwIfAborted(),
    });
    this.taskIndex = options.messages.findLastIndex((message) => message.role === 'user');
    const { contextWindow, maxTokens, reasoningEffort } = options;
    if (contextWindow !== undefined) {
      const reservedTokens =
        options.provider.outputTokens?.({ maxTokens, reasoningEffort }) ??
        maxTokens ??
        Math.min(DEFAULT_RESERVED_OUTPUT_TOKENS, Math.floor(contextWindow / 4));
      this.fitter = new ContextFitter({ contextWindow, reservedTokens }, this.tokens);
    }
    this.maxIterations = clampIterations(options.maxIterations);
    const { maxToolCalls, maxTotalTokens } = options;
    this.stopWhen = [
      ...(maxToolCalls === undefined ? [] : [toolCallCountIs(maxToolCalls)]),
      ...(maxTotalTokens === undefined ? [] : [totalTokensReach(maxTotalTokens)]),
      stepCountIs(this.maxIterations),
    ];
    this.maxConsecutiveInvalid = options.maxConsecutiveInvalid ?? DEFAULT_MAX_CONSECUTIVE_INVALID;
    this.repetitionLimit = options.repetitionLimit ?? DEFAULT_REPETITION_LIMIT;
    this.invalidCalls = new InvalidCallTracker(this.maxConsecutiveInvalid, resume?.invalidCalls);
    this.repetition = new RepetitionBreaker(this.repetitionLimit, resume?.repetition);
    this.answerRetries = new AnswerRetries(options.answerCheck, resume?.answerRetries);
    this.callExecutor = new ToolCallExecutor({
      options,
      scope: this.scope,
      selection: this.selection,
      offeredNames: () => new Set(this.offeredSchemas().map((schema) => schema.function.name)),
      prepareSelection: (query) => this.prepareSelection(query),
      task: () => this.options.messages[this.taskIndex]?.content ?? '',
      fitSummary: (request) => this.budget.forSummary(request),
      countSummary: (usage, model) => {
        this.usage.promptTokens += usage.promptTokens;
        this.usage.completionTokens += usage.completionTokens;
        this.usage.totalTokens += usage.totalTokens;
        this.options.hooks?.onSummaryUsage?.(usage, this.addCost(usage, model));
      },
    });
    if (resume) {
      this.toolCalls.push(...resume.toolCalls);
      Object.assign(this.usage, resume.usage);
      this.iterationsUsed = resume.iterationsUsed;
      this.startedToolCalls = resume.startedToolCalls;
      this.forcing = resume.forcing;
      this.round = resume.round;
      this.resumedRound = resume.round !== null;
    }
  }

  async execute(): Promise<AgentLoopResult> {
    try {
      const result = await this.loop();
      await this.stored();
      return result;
    } catch (error) {
      // Every write is over before the loop ends: a run handed back must not be stored after another process resumed it.
      await Promise.allSettled(this.storing.splice(0));
      return this.fail(error);
    }
  }

  /** Waits for the checkpoints still being stored; throws when one failed. */
  private async stored(): Promise<void> {
    await Promise.all(this.storing.splice(0));
  }

  dispose(): void {
    this.scope.dispose();
  }

  private async loop(): Promise<AgentLoopResult> {
    if (this.round) {
      const limit = (await this.answerRound(this.round)) ?? this.reachedLimit();
      if (limit) return this.finish(limit);
    }
    for (;;) {
      await this.prepareSelection();
      let response: ChatResponse;
      try {
        response = await this.callModel(this.nextRequest(), true);
      } catch (error) {
        if (error instanceof NodeTokenBudgetRefusal) return this.finish('budget_tokens');
        throw error;
      }
      await this.stored();
      const assistant = toAssistantMessage(response);
      if (assistant) this.messages.push(assistant);
      if (response.toolCalls.length === 0 && response.malformedToolCalls.length === 0) {
        if (this.sendBack(response.content)) continue;
        return this.result(response.content, answerStopReason(response.finishReason));
      }
      this.iterationsUsed += 1;
      this.round = { calls: response.toolCalls.map((call) => this.plan(call)), malformed: response.malformedToolCalls };
      await this.checkpoint();
      const limit = (await this.answerRound(this.round)) ?? this.reachedLimit();
      if (limit) return this.finish(limit);
    }
  }

  private snapshot(): AgentLoopCheckpoint {
    const state: AgentLoopCheckpoint = {
      messages: [...this.messages],
      toolCalls: [...this.toolCalls],
      usage: { ...this.usage },
      iterationsUsed: this.iterationsUsed,
      startedToolCalls: this.startedToolCalls,
      forcing: this.forcing,
      invalidCalls: this.invalidCalls.state,
      repetition: this.repetition.state,
      round: this.round && { ...this.round, calls: this.round.calls.map((item) => ({ ...item })) },
      ...(this.answerRetries.count > 0 ? { answerRetries: this.answerRetries.count } : {}),
    };
    // Only the calls a resumed loop would execute keep the arguments as written, until they are answered.
    const actions = state.round ? this.resumeActionsOf(state.round) : [];
    return toStoredCheckpoint(
      state,
      (item, index) => item.skipResponse === undefined && actions[index] === 'run',
      this.secretArguments,
    );
  }

  private isConcurrent(item: RoundCall): boolean {
    return item.skipResponse === undefined && this.effects.get(item.call.name) === 'read_only';
  }

  /** What a loop resumed from a checkpoint of this round would do with each of its calls. */
  private resumeActionsOf(round: LoopRound): ResumeAction[] {
    return resumeActions(
      round,
      (name) => this.effects.get(name),
      (item) => this.isConcurrent(item),
    );
  }

  private async checkpoint(): Promise<void> {
    if (this.options.onCheckpoint) await this.options.onCheckpoint(this.snapshot());
  }

  /** Embeds the query of the next call when the selection uses embeddings (once per query). */
  private async prepareSelection(query?: string): Promise<void> {
    if (this.selection?.usesEmbeddings) {
      await this.scope.race(this.selection.prepare(this.messages, this.scope.signal, query));
    }
  }

  private nextRequest(): ChatRequest {
    const offer = selectToolOffer({
      tools: this.offeredSchemas(),
      disabled: this.invalidCalls.disabled,
      toolChoice: this.options.toolChoice,
      forcing: this.forcing,
    });
    const { parallelToolCalls } = this.options;
    return {
      ...this.baseRequest(),
      messages: [...this.messages],
      ...offer,
      ...(offer.tools && parallelToolCalls !== undefined ? { parallelToolCalls } : {}),
    };
  }

  /**
   * The node's tools (or, with more than `maxTools`, the ones selected for this call plus search_tools), plus
   * read_tool_result once a result was cut. Everything is read from the history, so it survives a resume.
   */
  private offeredSchemas(): FunctionTool[] {
    const offersReader =
      this.options.toolResults !== undefined &&
      !this.schemas.some((schema) => schema.function.name === READ_TOOL_RESULT) &&
      this.messages.some((message) => message.role === 'tool' && message.content.includes(CUT_NOTE_START));
    const reader = offersReader ? [readToolResultSchema] : [];
    if (!this.selection) return [...this.schemas, ...reader];
    const { toolChoice } = this.options;
    const pinned = typeof toolChoice === 'object' && this.forcing ? [toolChoice.name] : [];
    const names = this.schemas.map((schema) => schema.function.name);
    const picked = new Set(this.selection.pick(this.messages, names, pinned));
    return [...this.schemas.filter((schema) => picked.has(schema.function.name)), searchToolsSchema, ...reader];
  }

  private baseRequest(): Omit<ChatRequest, 'messages'> {
    const { model, temperature, maxTokens, reasoningEffort, responseFormat } = this.options;
    return {
      model,
      ...(temperature !== undefined ? { temperature } : {}),
      ...(maxTokens !== undefined ? { maxTokens } : {}),
      ...(reasoningEffort !== undefined ? { reasoningEffort } : {}),
      ...(responseFormat !== undefined ? { responseFormat } : {}),
    };
  }

  /** Sends a final answer that fails `answerCheck` back to the model (see AnswerCheck); false: it stands. */
  private sendBack(answer: string): boolean {
    const next = this.answerRetries.next(answer);
    if (next === null) return false;
    this.messages.push(next.message);
    this.options.hooks?.onAnswerRetry?.(next.retry);
    return true;
  }

  /** `runsCalls`: the answer's calls will run, so the calls recovered from its text are announced like streamed ones. */
  private async callModel(request: ChatRequest, runsCalls = false): Promise<ChatResponse> {
    this.scope.throwIfAborted();
    const hooks = this.options.hooks ?? {};
    const forward = forwardStreamEvents(hooks);
    const streamed = new Set<string>();
    const onEvent = (event: ChatStreamEvent): void => {
      if (event.type === 'tool-call-start') streamed.add(event.id);
      if (event.type === 'retry') streamed.clear();
      forward(event);
    };
    const fitted = this.budget.forCall(this.fitContext(request));
    const response = await this.scope.race(this.options.provider.chat(fitted, { signal: this.scope.signal, onEvent }));
    const repair = runsCalls ? announceRepairedCalls(response, streamed, hooks) : undefined;
    this.usage.promptTokens += response.usage.promptTokens;
    this.usage.completionTokens += response.usage.completionTokens;
    this.usage.totalTokens += response.usage.totalTokens;
    this.usage.modelCalls += 1;
    const cost = this.addCost(response.usage, request.model);
    if (response.reasoning !== '') this.reasoning.push(response.reasoning);
    this.options.hooks?.onModelCall?.({
      iteration: this.usage.modelCalls,
      usage: response.usage,
      tools: request.tools?.map((tool) => tool.function.name) ?? [],
      ...(cost !== undefined && { cost }),
      ...(repair !== undefined && { repair }),
    });
    return response;
  }

  /** Adds one call's cost to the loop's (undefined when the loop counts none). */
  private addCost(usage: TokenUsage, model: string): Cost | null | undefined {
    const { costOf } = this.options;
    if (costOf === undefined) return undefined;
    const cost = costOf(usage, model);
    this.usage.cost = this.usage.cost === undefined ? cost : addCosts([this.usage.cost, cost]);
    return cost;
  }

  /** The request within the context window; the loop's own history stays whole (see ContextFitter). */
  private fitContext(request: ChatRequest): ChatRequest {
    if (this.fitter === undefined) return request;
    const { messages, trim } = this.fitter.fit(request.messages, request.tools ?? [], this.taskIndex);
    if (trim === null) return request;
    const { contextWindow, reservedTokens } = this.fitter.limit;
    this.options.hooks?.onContextTrimmed?.({
      iteration: this.usage.modelCalls + 1,
      contextWindow,
      reservedTokens,
      ...trim,
    });
    return { ...request, messages };
  }

  /** Answers every call of the round in call order; returns the limit the calls themselves hit. */
  private async answerRound(round: LoopRound): Promise<LimitStopReason | null> {
    const snapshot = [...this.messages];
    const isConcurrent = (item: RoundCall) => this.isConcurrent(item);
    const actions: ResumeAction[] = this.resumedRound ? this.resumeActionsOf(round) : round.calls.map(() => 'run');
    this.resumedRound = false;
    const action = new Map(round.calls.map((item, index) => [item, actions[index]]));
    const waiting = await this.decideApprovals(round);
    const runnable = round.calls.filter((item) => item.approval !== 'pending');
    const answered = await runToolBatches(runnable, isConcurrent, (item, lastBatch) =>
      this.answer(item, action.get(item) ?? 'run', snapshot, lastBatch),
    );
    if (waiting) {
      this.scope.throwIfAborted();
      await this.checkpoint();
      throw new AwaitingApprovalError();
    }
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
    if (round.calls.some((item) => item.verdict === 'stop')) return 'repetition';
    return round.calls.some((item) => item.skipResponse === TOOL_BUDGET_RESPONSE) ? 'budget_tool_calls' : null;
  }

  /**
   * Asks `approvals` about each call of the round that may wait for a person; true while one still waits. A
   * decided call is checkpointed as approved (or answered as rejected) before it starts, so that a crash while
   * it runs does not repeat it.
   */
  private async decideApprovals(round: LoopRound): Promise<boolean> {
    const gate = this.options.approvals;
    if (!gate) return false;
    let waiting = false;
    let decided = false;
    for (const item of round.calls) {
      if (item.answer !== undefined || item.skipResponse !== undefined || item.approval === 'approved') continue;
      const decision = await gate.check(item.call);
      if (decision === null) continue;
      if (decision === 'pending') {
        item.approval = 'pending';
        waiting = true;
      } else if (decision.approved) {
        item.approval = 'approved';
        if (decision.arguments !== undefined) item.approvedArguments = decision.arguments;
        decided = true;
      } else {
        delete item.approval;
        await this.options.onUnrunCall?.(item.call, 'rejected', decision.response);
        item.answer = { status: 'rejected', response: decision.response, durationMs: 0 };
        decided = true;
      }
    }
    if (decided && !waiting) await this.checkpoint();
    return waiting;
  }

  /**
   * One call's answer: stored, run, or (after a resume) not repeated; a new answer is checkpointed before the next
   * call starts. The answers of the round's last batch are stored while the model is called again: no call starts
   * before they are, and the next state is written after them.
   */
  private async answer(
    item: RoundCall,
    action: ResumeAction,
    snapshot: readonly ChatMessage[],
    lastBatch: boolean,
  ): Promise<CallAnswer> {
    if (item.answer) return { call: item.call, ...item.answer };
    // A call the loop answers itself gets the same answer again after a resume: nothing to store.
    if (item.skipResponse !== undefined) return this.callExecutor.execute(item, snapshot);
    let answered: CallAnswer;
    if (action === 'unknown_outcome') {
      await this.options.onUnrunCall?.(item.call, 'unknown_outcome', UNKNOWN_OUTCOME_RESPONSE);
      answered = { call: item.call, status: 'unknown_outcome', response: UNKNOWN_OUTCOME_RESPONSE, durationMs: 0 };
    } else {
      answered = await this.callExecutor.execute(item, snapshot);
    }
    // An answer made while the loop stops (cancel, hand-back) is not stored: a resumed loop decides again.
    if (this.scope.signal.aborted) return answered;
    item.answer = {
      status: answered.status,
      response: answered.response,
      durationMs: answered.durationMs,
      ...(answered.repair && { repair: answered.repair }),
    };
    const storing = this.checkpoint();
    if (!lastBatch) {
      await storing;
      return answered;
    }
    // Awaited by stored(); until then a failure must not count as unhandled.
    storing.catch(() => undefined);
    this.storing.push(storing);
    return answered;
  }

  private plan(call: ToolCall): RoundCall {
    if (this.invalidCalls.isDisabled(call.name)) {
      return { call, verdict: 'ok', skipResponse: disabledToolResponse(call.name) };
    }
    const verdict = this.repetition.observe(call);
    if (verdict === 'stop') return { call, verdict, skipResponse: REPEATED_CALL_RESPONSE };
    const { maxToolCalls } = this.options;
    if (maxToolCalls !== undefined && this.startedToolCalls >= maxToolCalls) {
      return { call, verdict, skipResponse: TOOL_BUDGET_RESPONSE };
    }
    this.startedToolCalls += 1;
    return { call, verdict };
  }

  private settle({ call, status, response, durationMs, repair }: CallAnswer, verdict: RepetitionVerdict): void {
    let content = response;
    if (verdict === 'warn') content += repetitionNote(call.name, this.repetitionLimit);
    if (status !== 'skipped' && this.invalidCalls.record(call.name, status)) {
      content += disabledToolNote(call.name, this.maxConsecutiveInvalid);
    }
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

  private reachedLimit(): LimitStopReason | null {
    const progress = {
      iterations: this.iterationsUsed,
      startedToolCalls: this.startedToolCalls,
      totalTokens: this.usage.totalTokens,
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
          base: this.baseRequest(),
          callModel: (request) => this.callModel(request),
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
      usage: { ...this.usage },
      reasoning: this.reasoning.join('\n\n'),
      messages: [...this.messages],
      answerRetries: this.answerRetries.count,
      ...(error !== undefined ? { error } : {}),
    };
  }
}
