import type { Cost } from '../llm/model-prices';
import type { ChatMessage, TokenUsage } from '../shared/chat-types';
import type { ChatProvider, ReasoningEffort, ResponseFormat, ToolChoice } from '../llm/provider';
import type { ToolDefinition } from '../shared/tool-definition';
import type { ToolCallStatus } from '../shared/tool-call-status';
import type { ToolCallOutcome } from '../shared/tool-call-outcome';
import type { ToolCall, ToolCallRepair, ToolCallRepairKind } from '../shared/tool-types';
import type { AnswerCheck, AnswerRetry } from './answer-check';
import type { ApprovalGate } from './approval-gate';
import type { AgentLoopCheckpoint } from './loop-checkpoint';
import type { ToolSelection } from './selection/tool-selection';
import type { ContextTrim } from './fit-context';

/** The run's token budget as the loop sees it (the RunMeter). */
export interface RunTokenBudget {
  /** Tokens still allowed; undefined: no budget. */
  left(): number | undefined;
  refuse(promptTokens: number, addedOutputTokens: number): void;
}

/** The part of a ToolCallOutcome the loop reads: a narrow view, so that tests and other callers need no more. */
export type LoopToolOutcome = Pick<ToolCallOutcome, 'call' | 'toolName' | 'status' | 'response' | 'repair'> & {
  metadata?: { duration_ms?: number };
};

/**
 * Runs one tool call and never throws (the engine passes a closure over `runTool`).
 * `signal` aborts on cancellation or when the loop's time limit passes; pass it on as the tool's run signal.
 */
export type ExecuteTool<O extends LoopToolOutcome = LoopToolOutcome> = (
  call: ToolCall,
  messages: readonly ChatMessage[],
  signal: AbortSignal,
) => Promise<O>;

/** What the loop needs from a tool: the schema it offers and the effect that decides parallelism. */
export type AgentTool = Pick<ToolDefinition, 'schema' | 'effect'>;

export interface AgentLoopHooks<O extends LoopToolOutcome = LoopToolOutcome> {
  onText?(delta: string): void;
  onReasoning?(delta: string): void;
  /**
   * A call starts streaming; for a call recovered from the model's text (see ToolCallRepair) it fires once the answer
   * is complete, with its `repair`, followed by one onToolParam with its whole arguments, before onModelCall.
   */
  onToolCall?(event: { id: string; name: string; index: number; repair?: ToolCallRepair }): void;
  onToolParam?(event: { id: string; name: string; argsDelta: string }): void;
  /** Fires once per executed call with the executor's outcome (not for calls the loop skipped). */
  onAfterToolCall?(outcome: O): void;
  /** Fires for a call in flight when the loop's signal aborted (a cancel, the run's time limit), instead of onAfterToolCall. */
  onToolCallStopped?(event: { call: ToolCall; reason: unknown; durationMs: number }): void;
  /** `iteration` numbers every model call from 1, the final-answer call included; `usage` is that call's. */
  onModelCall?(event: {
    iteration: number;
    usage: TokenUsage;
    tools: string[];
    cost?: Cost | null;
    repair?: ModelCallRepair;
  }): void;
  /** The tokens of a tool result's summary, which count in the loop's usage without being a model call of it. */
  onSummaryUsage?(usage: TokenUsage, cost?: Cost | null): void;
  onRetry?(event: { attempt: number; delayMs: number; reason: string }): void;
  /** A request was trimmed to fit `contextWindow` before model call `iteration` (numbered like onModelCall). */
  onContextTrimmed?(event: ContextTrimEvent): void;
  /** A final answer failed `answerCheck` and went back to the model. */
  onAnswerRetry?(event: AnswerRetry): void;
}

/**
 * A model answer whose tool calls were repaired: the first repaired call's kind and the ids of every repaired call.
 * `text`, when the calls were read from the answer's text, is what is left of that text without them: it replaces
 * the text streamed by onText, which was the calls.
 */
export interface ModelCallRepair {
  kind: ToolCallRepairKind;
  callIds: string[];
  text?: string;
}

export interface ContextTrimEvent extends ContextTrim {
  iteration: number;
  contextWindow: number;
  reservedTokens: number;
}

/** Cuts results longer than `maxTokens` for the model; the full text is kept by `store`, which returns its ref. */
export interface ToolResultLimit {
  maxTokens: number;
  store(call: ToolCall, text: string): Promise<string>;
  /**
   * Summarise a longer result with `model` (of the loop's provider) instead of cutting it; the model reads at
   * most `inputTokens` of it. A failed or empty summary falls back to the cut.
   */
  summarize?: { model: string; inputTokens: number };
}

/** Durability of a loop: where it resumes, and where its state goes. Both are optional; the loop itself stores nothing. */
export interface AgentLoopDurability {
  /** A state stored by `onCheckpoint` (possibly by another process): the loop goes on from it instead of from `messages`. */
  resume?: AgentLoopCheckpoint;
  /**
   * Called after every model response that requested tools and after every tool result; a rejection ends the loop
   * with `error`. A response's state (and the results of the round before) is stored before any of its calls
   * starts, unless every call may run twice without harm (`read_only`, `idempotent`, no approval): those start while
   * it is stored, and the round waits for it before it ends.
   */
  onCheckpoint?(state: AgentLoopCheckpoint): Promise<void>;
  /** Awaited for a call the loop answers without running it (`unknown_outcome` after a resume, `rejected`), to record it. */
  onUnrunCall?(call: ToolCall, status: ToolCallStatus, response: string): Promise<void>;
}

export interface AgentLoopOptions<O extends LoopToolOutcome = LoopToolOutcome> extends AgentLoopDurability {
  provider: ChatProvider;
  model: string;
  /** What a call's usage on `model` cost (null: no known price); absent: the loop counts no cost. */
  costOf?: (usage: TokenUsage, model: string) => Cost | null;
  /** The conversation to start from (system + user); never mutated. */
  messages: readonly ChatMessage[];
  tools: readonly AgentTool[];
  executeTool: ExecuteTool<O>;
  /**
   * Asked as each call is about to start, `search_tools` included (it costs the model a round like any call);
   * false: the call does not start, as a budget kept outside the loop is used up (that budget aborts `signal`).
   */
  startToolCall?(): boolean;
  /** Model calls that may request tools; default 5, clamped to 1..50. */
  maxIterations?: number;
  /** `'required'` and `{ name }` force a call only until one valid call satisfies them, then `'auto'`. */
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  temperature?: number;
  maxTokens?: number;
  reasoningEffort?: ReasoningEffort;
  /** Sent with every model call but tool-result summaries: the final answer must be JSON matching its schema. */
  responseFormat?: ResponseFormat;
  /** What a final answer must satisfy; one that fails goes back to the model (see AnswerCheck). */
  answerCheck?: AnswerCheck;
  /** Default `'final_answer'`. */
  onMaxIterations?: 'final_answer' | 'fail';
  maxToolCalls?: number;
  /**
   * The node's token budget. Before each model call the request's prompt is counted against what is left (of
   * it and of `runTokens`): a call that cannot hold its prompt plus a short answer is not made, any other gets
   * `maxTokens` capped to what is left after its prompt (see decideTokenBudget).
   */
  maxTotalTokens?: number;
  /**
   * A token budget kept outside the loop (the run's). `left` is asked before each model call; `refuse` is called
   * instead of a call that does not fit, and must abort `signal` (the loop then ends as cancelled).
   */
  runTokens?: RunTokenBudget;
  timeoutMs?: number;
  /** Consecutive invalid-argument calls after which a tool is disabled for this loop; default 3. */
  maxConsecutiveInvalid?: number;
  /** Identical calls in a row that earn a warning (one more ends the loop); default 3. */
  repetitionLimit?: number;
  /**
   * Off when absent. A longer result is cut (see cutToolResult) and `read_tool_result` is offered from then on;
   * `executeTool` must run that tool (see readToolResultTool).
   */
  toolResults?: ToolResultLimit;
  /**
   * Tokens (in plus out) the model takes; off when absent. Each request is kept within it minus the output tokens
   * it asks for (the provider's `outputTokens`, else `maxTokens`, else 4096 and at most a quarter of the window)
   * by ContextFitter; the loop's own history stays whole.
   */
  contextWindow?: number;
  /**
   * Calls that wait for a person (tools with `requires_approval`). While any call of a round waits, the others
   * are answered, the state is checkpointed and the loop throws AwaitingApprovalError; a loop resumed from that
   * checkpoint asks again and runs (or answers as rejected) the decided calls before the next model call.
   */
  approvals?: ApprovalGate;
  /** Used when there are more tools than its `maxTools`: each call offers a selection plus `search_tools`. */
  toolSelection?: ToolSelection;
  signal?: AbortSignal;
  hooks?: AgentLoopHooks<O>;
}
