import type { ChatRequest } from '../llm/provider';
import { fitsInTokens } from '../llm/token-count';
import type { ChatMessage, TokenUsage } from '../shared/chat-types';
import { errorMessage } from '../shared/error-text';
import type { ToolCall } from '../shared/tool-types';
import { type AbortScope, LoopAbortedError } from './abort-scope';
import type { AgentLoopOptions, LoopToolOutcome, ToolResultLimit } from './agent-loop-options';
import { cutToolResult } from './cut-tool-result';
import type { RoundAnswer, RoundCall } from './loop-checkpoint';
import { READ_TOOL_RESULT } from './read-tool-result';
import { SEARCH_TOOLS, type ToolSelection } from './selection/tool-selection';
import { summarizeToolResult } from './summarize-tool-result';

const INTERRUPTED_RESPONSE = 'Not executed: the step was stopped before this call could finish.';

/** A call of the round with its answer. */
export interface CallAnswer extends RoundAnswer {
  call: ToolCall;
}

/** What executing one call needs of the loop it belongs to. */
export interface ToolCallExecutionHost<O extends LoopToolOutcome> {
  options: AgentLoopOptions<O>;
  scope: AbortScope;
  /** The node's tool selection, when it offers search_tools. */
  selection: ToolSelection | undefined;
  /** The names of the tools the next request offers (search_tools leaves them out of what it finds). */
  offeredNames: () => Set<string>;
  /** Embeds a search_tools query when the selection uses embeddings. */
  prepareSelection: (query: string) => Promise<void>;
  /** The task a long result is summarized for. */
  task: () => string;
  /** A summary request within the loop's token budgets; null when it does not fit. */
  fitSummary: (request: ChatRequest) => ChatRequest | null;
  /** Counts a summary's tokens (and cost) in the loop's usage. */
  countSummary: (usage: TokenUsage, model: string) => void;
}

/**
 * Executes one tool call of a round for the agent loop: the call a person approved with edited arguments runs with
 * them, a stopped loop answers without running, search_tools is answered from the node's index, and a result over
 * the limit is stored and cut (or summarized) before the model sees it. Failures are answers, never exceptions.
 */
export class ToolCallExecutor<O extends LoopToolOutcome> {
  constructor(private readonly host: ToolCallExecutionHost<O>) {}

  /** Runs one call of the round (or answers it without running: skipped, stopped, search_tools). */
  async execute(item: RoundCall, snapshot: readonly ChatMessage[]): Promise<CallAnswer> {
    const { skipResponse, approvedArguments } = item;
    // Arguments a person edited replace the model's.
    const call = approvedArguments === undefined ? item.call : { ...item.call, arguments: approvedArguments };
    if (skipResponse !== undefined) return { call, status: 'skipped', response: skipResponse, durationMs: 0 };
    if (this.host.scope.signal.aborted)
      return { call, status: 'skipped', response: INTERRUPTED_RESPONSE, durationMs: 0 };
    if (this.host.options.startToolCall?.() === false) {
      return { call, status: 'cancelled', response: INTERRUPTED_RESPONSE, durationMs: 0 };
    }
    if (this.host.selection && call.name === SEARCH_TOOLS) return await this.searchTools(call);
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    let outcome: O;
    try {
      outcome = await this.host.scope.race(this.host.options.executeTool(call, snapshot, this.host.scope.signal));
    } catch (error) {
      if (error instanceof LoopAbortedError) {
        this.host.options.hooks?.onToolCallStopped?.({
          call,
          reason: this.host.scope.signal.reason,
          durationMs: elapsed(),
        });
        return { call, status: 'cancelled', response: INTERRUPTED_RESPONSE, durationMs: elapsed() };
      }
      // executeTool must not throw; if it does anyway, the model hears about it like any tool error.
      return {
        call,
        status: 'error',
        response: `Tool ${call.name} failed: ${errorMessage(error)}`,
        durationMs: elapsed(),
      };
    }
    this.host.options.hooks?.onAfterToolCall?.(outcome);
    const durationMs = outcome.metadata?.duration_ms ?? elapsed();
    const response = await this.fitResult(call, outcome.response);
    return { call, status: outcome.status, response, durationMs, ...(outcome.repair && { repair: outcome.repair }) };
  }

  /** search_tools runs in the loop: it only reads the node's own index. */
  private async searchTools(call: ToolCall): Promise<CallAnswer> {
    const selection = this.host.selection as ToolSelection;
    let query: unknown;
    try {
      query = (JSON.parse(call.arguments) as { query?: unknown }).query;
    } catch {
      query = undefined;
    }
    if (typeof query !== 'string' || query.trim() === '') {
      const response = 'Invalid arguments for tool "search_tools": query must be a non-empty string.';
      return { call, status: 'invalid_arguments', response, durationMs: 0 };
    }
    const offered = this.host.offeredNames();
    await this.host.prepareSelection(query);
    return { call, status: 'success', response: selection.search(query, offered), durationMs: 0 };
  }

  /** The result as the model gets it: cut when over the limit, the full text stored once. */
  private async fitResult(call: ToolCall, response: string): Promise<string> {
    const limit = this.host.options.toolResults;
    if (limit === undefined || call.name === READ_TOOL_RESULT) return response;
    if (fitsInTokens(response, limit.maxTokens)) return response;
    let ref: string | null = null;
    try {
      ref = await limit.store(call, response);
    } catch {
      // Not stored: the model still gets the cut result, and the note says the rest cannot be read.
    }
    if (limit.summarize !== undefined) {
      const summary = await this.summarize(call, response, limit.maxTokens, limit.summarize, ref);
      if (summary !== null) return summary;
    }
    return cutToolResult(response, { maxTokens: limit.maxTokens, ref }) ?? response;
  }

  /** The summary of a long result, its tokens counted in the loop's usage; null: cut it instead. */
  private async summarize(
    call: ToolCall,
    response: string,
    maxTokens: number,
    { model, inputTokens }: NonNullable<ToolResultLimit['summarize']>,
    ref: string | null,
  ): Promise<string | null> {
    try {
      const summary = await summarizeToolResult({
        provider: this.host.options.provider,
        model,
        call,
        text: response,
        maxTokens,
        inputTokens,
        task: this.host.task(),
        ref,
        signal: this.host.scope.signal,
        fit: this.host.fitSummary,
      });
      if (summary === null) return null;
      this.host.countSummary(summary.usage, model);
      return summary.content;
    } catch {
      return null;
    }
  }
}
