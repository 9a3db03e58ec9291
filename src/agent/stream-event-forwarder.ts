import type { ChatStreamEvent } from '../llm/provider';
import type { AgentLoopHooks, LoopToolOutcome } from './agent-loop-options';

/** Maps one model call's stream events onto the loop hooks; argument deltas carry the tool name. */
export const forwardStreamEvents = <O extends LoopToolOutcome>(
  hooks: AgentLoopHooks<O>,
): ((event: ChatStreamEvent) => void) => {
  const namesByIndex = new Map<number, string>();
  return (event) => {
    switch (event.type) {
      case 'text-delta':
        hooks.onText?.(event.delta);
        return;
      case 'reasoning-delta':
        hooks.onReasoning?.(event.delta);
        return;
      case 'tool-call-start':
        namesByIndex.set(event.index, event.name);
        hooks.onToolCall?.({ id: event.id, name: event.name, index: event.index });
        return;
      case 'tool-args-delta':
        hooks.onToolParam?.({ id: event.id, name: namesByIndex.get(event.index) ?? '', argsDelta: event.delta });
        return;
      case 'retry':
        hooks.onRetry?.({ attempt: event.attempt, delayMs: event.delayMs, reason: event.reason });
        return;
      default: {
        const unhandled: never = event;
        return unhandled;
      }
    }
  };
};
