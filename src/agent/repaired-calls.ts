import type { ChatResponse } from '../llm/provider';
import type { ToolCallRepair } from '../shared/tool-types';
import type { AgentLoopHooks, ModelCallRepair, LoopToolOutcome } from './agent-loop-options';

/**
 * Announces the calls of a model answer that were never streamed as calls (the provider recovered them from the
 * answer's text, see repairToolCalls) through onToolCall and onToolParam, as streamed calls are; returns the answer's
 * repair mark for onModelCall, or undefined when none of its calls was repaired. `streamed`: the ids of the calls
 * the provider streamed.
 */
export function announceRepairedCalls<O extends LoopToolOutcome>(
  response: Pick<ChatResponse, 'toolCalls' | 'content'>,
  streamed: ReadonlySet<string>,
  hooks: AgentLoopHooks<O>,
): ModelCallRepair | undefined {
  const repaired = response.toolCalls.filter((call) => call.repair !== undefined);
  if (repaired.length === 0) return undefined;
  const fromText = response.toolCalls.some((call) => !streamed.has(call.id));
  response.toolCalls.forEach((call, index) => {
    if (streamed.has(call.id)) return;
    hooks.onToolCall?.({ id: call.id, name: call.name, index, ...(call.repair && { repair: call.repair }) });
    hooks.onToolParam?.({ id: call.id, name: call.name, argsDelta: call.arguments });
  });
  const { kind } = repaired[0].repair as ToolCallRepair;
  return { kind, callIds: repaired.map((call) => call.id), ...(fromText ? { text: response.content } : {}) };
}
