import type { Cost } from '../llm/model-prices';
import type { ChatMessage, TokenUsage } from '../shared/chat-types';
import type { AgentToolCallStatus } from '../shared/tool-call-status';
import type { AgentStopReason } from './stop-reason';
import type { ToolCallRepair } from '../shared/tool-types';

export interface AgentToolCallRecord {
  id: string;
  name: string;
  /** Raw arguments as the model wrote them. */
  arguments: string;
  status: AgentToolCallStatus;
  /** What the model got back, truncated. */
  response: string;
  duration_ms: number;
  /** How the call was recovered from a weak model's answer, when it was. */
  repair?: ToolCallRepair;
}

export interface AgentLoopUsage extends TokenUsage {
  modelCalls: number;
  /** What the calls cost, summaries included, when the loop was given `costOf`; null: a call had no known price. */
  cost?: Cost | null;
}

export interface AgentLoopResult {
  output: string;
  stopReason: AgentStopReason;
  /** Model calls that requested tools (the final-answer call is not one). */
  iterationsUsed: number;
  toolCalls: AgentToolCallRecord[];
  usage: AgentLoopUsage;
  /** The reasoning of every model call, in order, separated by blank lines. */
  reasoning: string;
  /** Full history; every tool call id in it is answered by exactly one tool message. */
  messages: ChatMessage[];
  /** Final answers sent back because they failed the loop's `answerCheck`. */
  answerRetries: number;
  error?: string;
}
