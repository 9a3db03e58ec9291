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

type Redact = (text: string) => string;

const maskMessage = (message: ChatMessage, redact: Redact): ChatMessage =>
  message.role !== 'assistant' || message.tool_calls === undefined
    ? message
    : once(message, (assistant) => ({
        ...assistant,
        tool_calls: assistant.tool_calls?.map((toolCall) => ({
          ...toolCall,
          function: { ...toolCall.function, arguments: redact(toolCall.function.arguments) },
        })),
      }));

const maskRecord = (record: AgentToolCallRecord, redact: Redact): AgentToolCallRecord =>
  once(record, (raw) => ({ ...raw, arguments: redact(raw.arguments) }));

const maskCall = (call: ToolCall, redact: Redact): ToolCall =>
  once(call, (raw) => ({ ...raw, arguments: redact(raw.arguments) }));

/** Whether the round's call at `index` keeps its arguments as written. */
type KeepRaw = (item: RoundCall, index: number) => boolean;

const maskRound = (round: LoopRound, keepRaw: KeepRaw, redact: Redact): LoopRound => ({
  calls: round.calls.map((item, index) =>
    keepRaw(item, index) ? item : { ...item, call: maskCall(item.call, redact) },
  ),
  malformed: round.malformed.map((call) => ({ ...call, arguments: redact(call.arguments) })),
});

/**
 * The loop state as it is stored: credentials in the arguments the model wrote are masked, as call logs and
 * `tool.args.delta` events mask them, in the history, the call records and every call of the round except
 * those `keepRaw` names (calls a resumed loop would still execute); a resumed model sees its own earlier
 * calls masked. `secretArguments`: the argument names the tools' schemas declare secret.
 */
export const toStoredCheckpoint = (
  state: AgentLoopCheckpoint,
  keepRaw: KeepRaw,
  secretArguments?: ReadonlySet<string>,
): AgentLoopCheckpoint => {
  const redact: Redact = (text) => redactJsonText(text, secretArguments);
  return {
    ...state,
    messages: state.messages.map((message) => maskMessage(message, redact)),
    toolCalls: state.toolCalls.map((record) => maskRecord(record, redact)),
    round: state.round && maskRound(state.round, keepRaw, redact),
  };
};
