import type { ChatMessage } from '../shared/chat-types';
import { redactJsonText } from '../shared/json-text-redactor';
import type { ToolCall } from '../shared/tool-types';
import type { AgentToolCallRecord } from './agent-loop-result';
import type { AgentLoopCheckpoint, LoopRound, RoundCall } from './loop-checkpoint';

// History entries never change once made, and each checkpoint stores them all again: mask each one once.
const masked = new WeakMap<object, object>();

const once = <T extends object>(value: T, mask: (value: T) => T): T => {
  let copy = masked.get(value) as T | undefined;
  if (copy === undefined) masked.set(value, (copy = mask(value)));
  return copy;
};

const maskMessage = (message: ChatMessage): ChatMessage =>
  message.role !== 'assistant' || message.tool_calls === undefined
    ? message
    : once(message, (assistant) => ({
        ...assistant,
        tool_calls: assistant.tool_calls?.map((toolCall) => ({
          ...toolCall,
          function: { ...toolCall.function, arguments: redactJsonText(toolCall.function.arguments) },
        })),
      }));

const maskRecord = (record: AgentToolCallRecord): AgentToolCallRecord =>
  once(record, (raw) => ({ ...raw, arguments: redactJsonText(raw.arguments) }));

const maskCall = (call: ToolCall): ToolCall =>
  once(call, (raw) => ({ ...raw, arguments: redactJsonText(raw.arguments) }));

/** Whether the round's call at `index` keeps its arguments as written. */
type KeepRaw = (item: RoundCall, index: number) => boolean;

const maskRound = (round: LoopRound, keepRaw: KeepRaw): LoopRound => ({
  calls: round.calls.map((item, index) => (keepRaw(item, index) ? item : { ...item, call: maskCall(item.call) })),
  malformed: round.malformed.map((call) => ({ ...call, arguments: redactJsonText(call.arguments) })),
});

/**
 * The loop state as it is stored: credentials in the arguments the model wrote are masked, as call logs and
 * `tool.args.delta` events mask them, in the history, the call records and every call of the round except
 * those `keepRaw` names (calls a resumed loop would still execute); a resumed model sees its own earlier
 * calls masked.
 */
export const toStoredCheckpoint = (state: AgentLoopCheckpoint, keepRaw: KeepRaw): AgentLoopCheckpoint => ({
  ...state,
  messages: state.messages.map(maskMessage),
  toolCalls: state.toolCalls.map(maskRecord),
  round: state.round && maskRound(state.round, keepRaw),
});
