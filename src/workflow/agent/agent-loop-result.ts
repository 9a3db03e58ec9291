import type { ChatMessage, TokenUsage } from '../../shared/chat-types';
import type { ToolRunStatusLike } from './agent-loop-options';
import type { AgentStopReason } from './stop-reason';

/** `skipped`: the loop answered the call without running it; `malformed`: the provider could not read the call. */
export type AgentToolCallStatus = ToolRunStatusLike | 'skipped' | 'malformed';

export interface AgentToolCallRecord {
  id: string;
  name: string;
  /** Raw arguments as the model wrote them. */
  arguments: string;
  status: AgentToolCallStatus;
  /** What the model got back, truncated. */
  response: string;
  duration_ms: number;
}

export interface AgentLoopUsage extends TokenUsage {
  modelCalls: number;
}

export interface AgentLoopResult {
  output: string;
  stopReason: AgentStopReason;
  /** Model calls that requested tools (the final-answer call is not one). */
  iterationsUsed: number;
  toolCalls: AgentToolCallRecord[];
  usage: AgentLoopUsage;
  /** Full history; every tool call id in it is answered by exactly one tool message. */
  messages: ChatMessage[];
  error?: string;
}
