import type { ChatRequest } from '../llm/provider';
import type { AgentLoopOptions, LoopToolOutcome } from './agent-loop-options';

/** The fields of every model call of the loop but its messages and tools. */
export function baseRequest<O extends LoopToolOutcome>(options: AgentLoopOptions<O>): Omit<ChatRequest, 'messages'> {
  const { model, temperature, maxTokens, reasoningEffort, responseFormat } = options;
  return {
    model,
    ...(temperature !== undefined ? { temperature } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(reasoningEffort !== undefined ? { reasoningEffort } : {}),
    ...(responseFormat !== undefined ? { responseFormat } : {}),
  };
}
