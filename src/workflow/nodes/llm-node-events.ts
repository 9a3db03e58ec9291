import type { AgentLoopHooks } from '../../agent/agent-loop-options';
import type { RunEventType } from '../../runs/run-event-types';
import { stoppedCallResponse, type ToolCallOutcome } from '../../executors/run-tool';
import { JsonTextRedactor } from '../../shared/json-text-redactor';
import type { RunMeter } from '../execution/run-meter';
import { modelCallRepairMark } from './model-call-repair';

/** Tool responses in events are previews; the node run's output has them whole. */
const PREVIEW_CHARS = 1000;

export interface LlmNodeEventContext {
  nodeId: string;
  emit: (type: RunEventType, data: Record<string, unknown>) => void;
  /** Argument names whose values stay out of streamed argument deltas. */
  secretArguments: ReadonlySet<string>;
  /** Told of every model answer, with the tools it was offered, between its `llm.usage` and `llm.call` events. */
  onModelAnswer: (offered: string[]) => void;
  meter?: RunMeter;
}

/**
 * The agent loop's hooks of an LLM node: what the loop does becomes the run's live events (deltas, tool calls and
 * results, usage, retries, context trims), and every model call counts against the run's meter.
 */
export function llmNodeEvents({
  nodeId,
  emit,
  secretArguments,
  onModelAnswer,
  meter,
}: LlmNodeEventContext): AgentLoopHooks<ToolCallOutcome> {
  const argumentStreams = new Map<string, JsonTextRedactor>();
  const redactedDelta = (callId: string, delta: string) => {
    let redactor = argumentStreams.get(callId);
    if (!redactor) argumentStreams.set(callId, (redactor = new JsonTextRedactor(secretArguments)));
    return redactor.push(delta);
  };
  return {
    onText: (delta) => emit('llm.delta', { node_id: nodeId, delta }),
    onReasoning: (delta) => emit('llm.reasoning', { node_id: nodeId, delta }),
    onToolCall: ({ id, name, index, repair }) =>
      emit('tool.call', { node_id: nodeId, call_id: id, name, index, ...(repair && { repair }) }),
    onToolParam: ({ id, name, argsDelta }) => {
      const delta = redactedDelta(id, argsDelta);
      if (delta !== '') emit('tool.args.delta', { node_id: nodeId, call_id: id, name, delta });
    },
    onAfterToolCall: (outcome) =>
      emit('tool.result', {
        node_id: nodeId,
        call_id: outcome.call.id,
        name: outcome.toolName,
        status: outcome.status,
        duration_ms: outcome.metadata.duration_ms,
        response: outcome.response.slice(0, PREVIEW_CHARS),
        ...(outcome.metadata.repaired_arguments === true ? { repaired: true } : {}),
        ...(outcome.repair && { repair: outcome.repair }),
      }),
    onToolCallStopped: ({ call, reason, durationMs }) =>
      emit('tool.result', {
        node_id: nodeId,
        call_id: call.id,
        name: call.name,
        status: 'cancelled',
        duration_ms: durationMs,
        response: stoppedCallResponse(call.name, reason).slice(0, PREVIEW_CHARS),
      }),
    onModelCall: ({ iteration, usage, tools: offered, cost = null, repair }) => {
      const repairMark = modelCallRepairMark(repair);
      emit('llm.usage', {
        node_id: nodeId,
        iteration,
        usage: {
          prompt_tokens: usage.promptTokens,
          completion_tokens: usage.completionTokens,
          total_tokens: usage.totalTokens,
          ...(usage.cachedPromptTokens !== undefined && { cached_prompt_tokens: usage.cachedPromptTokens }),
          ...(usage.reasoningTokens !== undefined && { reasoning_tokens: usage.reasoningTokens }),
        },
        cost,
        ...repairMark,
      });
      onModelAnswer(offered);
      emit('llm.call', {
        node_id: nodeId,
        iteration,
        offered_tools: offered,
        prompt_tokens: usage.promptTokens,
        completion_tokens: usage.completionTokens,
        ...repairMark,
      });
      // Last: reaching the run's token budget aborts the run, after this call's events are out.
      meter?.addModelCall(usage, 1, cost);
    },
    onSummaryUsage: (usage, cost = null) => meter?.addModelCall(usage, 0, cost),
    onRetry: ({ attempt, delayMs, reason }) =>
      emit('llm.retry', { node_id: nodeId, attempt, delay_ms: delayMs, reason }),
    onAnswerRetry: ({ attempt, problems }) => emit('llm.output_retry', { node_id: nodeId, attempt, errors: problems }),
    onContextTrimmed: (trim) =>
      emit('llm.context_trimmed', {
        node_id: nodeId,
        iteration: trim.iteration,
        context_window: trim.contextWindow,
        reserved_tokens: trim.reservedTokens,
        tokens_before: trim.tokensBefore,
        tokens_after: trim.tokensAfter,
        shortened_results: trim.shortenedResults,
        dropped_messages: trim.droppedMessages,
      }),
  };
}
