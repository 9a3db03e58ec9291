import type { MalformedToolCall } from '../llm/provider';
import { truncate } from '../shared/truncate';

const MAX_ARGUMENT_CHARS = 300;

/**
 * What the model is told about calls the provider could not read. Sent as a user message because
 * those calls are not in the assistant message, so no tool message may answer them.
 */
export const malformedCallsNote = (calls: readonly MalformedToolCall[]): string => {
  const lines = calls.map((call) => {
    const id = call.id === '' ? '' : ` (id ${call.id})`;
    return `- tool call${id} could not be executed: ${call.reason}. Arguments received: ${truncate(call.arguments, MAX_ARGUMENT_CHARS)}`;
  });
  return [
    'Some of your tool calls were malformed and were not executed:',
    ...lines,
    'Call the tool again with its exact name and JSON arguments matching its schema.',
  ].join('\n');
};
