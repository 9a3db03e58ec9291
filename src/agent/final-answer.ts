import type { ChatMessage } from '../shared/chat-types';
import type { ChatRequest, ChatResponse } from '../llm/provider';
import type { FunctionTool } from '../shared/tool-types';
import { describeLimit, type LimitStopReason } from './stop-reason';

export const finalAnswerInstruction = (reason: LimitStopReason): string =>
  `Tools are no longer available because ${describeLimit(reason)}. ` +
  'Answer now with the information gathered so far, and say what is missing if the task is incomplete.';

/** Output when the model gave no text at the end; never a tool result dressed up as an answer. */
export const fallbackAnswer = (reason: LimitStopReason): string =>
  `No final answer was produced: the agent stopped because ${describeLimit(reason)} before the model wrote a reply.`;

export interface FinalAnswerInput {
  reason: LimitStopReason;
  history: readonly ChatMessage[];
  /** Every tool of the loop, so the tool messages in the history stay backed by a definition. */
  tools: readonly FunctionTool[];
  base: Omit<ChatRequest, 'messages' | 'tools' | 'toolChoice' | 'parallelToolCalls'>;
  callModel: (request: ChatRequest) => Promise<ChatResponse>;
}

export interface FinalAnswer {
  output: string;
  /** Messages to append to the history: the instruction, then the model's text when it wrote some. */
  appended: ChatMessage[];
}

/**
 * One last model call with `tool_choice: none`. Tool calls it still returns are ignored;
 * empty text becomes a fallback that says which limit was reached.
 */
export const requestFinalAnswer = async ({
  reason,
  history,
  tools,
  base,
  callModel,
}: FinalAnswerInput): Promise<FinalAnswer> => {
  const instruction: ChatMessage = { role: 'user', content: finalAnswerInstruction(reason) };
  const messages = [...history, instruction];
  const offer = tools.length > 0 ? { tools: [...tools], toolChoice: 'none' as const } : {};
  const response = await callModel({ ...base, messages, ...offer });
  if (response.content.trim() === '') return { output: fallbackAnswer(reason), appended: [instruction] };
  return { output: response.content, appended: [instruction, { role: 'assistant', content: response.content }] };
};
