import type { ReasoningPart, TokenUsage } from '../shared/chat-types';
import type { ChatResponse, ChatStreamEvent } from './provider';
import type { StreamChunk } from './stream-chunk';
import { ToolCallStream } from './tool-call-stream';

export type StreamedAnswerResult = Omit<ChatResponse, 'repairs'>;

const NO_USAGE: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/** Accumulates one attempt's chunks and forwards each delta as an event the moment it arrives. */
export class StreamedAnswer {
  private content = '';
  private reasoning = '';
  private readonly reasoningParts: ReasoningPart[] = [];
  private finishReason: string | null = null;
  private usage: TokenUsage | null = null;
  private readonly toolCalls: ToolCallStream;

  constructor(
    firstGeneratedId: number,
    private readonly emit: (event: ChatStreamEvent) => void = () => undefined,
  ) {
    this.toolCalls = new ToolCallStream(firstGeneratedId);
  }

  add(chunk: StreamChunk): void {
    if (chunk.reasoning !== '') {
      this.reasoning += chunk.reasoning;
      this.emit({ type: 'reasoning-delta', delta: chunk.reasoning });
    }
    if (chunk.content !== '') {
      this.content += chunk.content;
      this.emit({ type: 'text-delta', delta: chunk.content });
    }
    for (const delta of chunk.toolCalls) {
      for (const event of this.toolCalls.push(delta)) this.emit(event);
    }
    // Some servers repeat finish_reason or send it before a trailing chunk; the last one counts.
    if (chunk.finishReason !== null) this.finishReason = chunk.finishReason;
    if (chunk.usage !== null) this.usage = chunk.usage;
  }

  /** A finished reasoning block, kept for the next request; its text was already streamed through `add`. */
  addReasoningPart(part: ReasoningPart): void {
    this.reasoningParts.push(part);
  }

  /** Calls are returned whatever the finish reason says: `stop` or none at all with calls present is common. */
  finish(): StreamedAnswerResult {
    const { toolCalls, malformedToolCalls } = this.toolCalls.finish();
    return {
      content: this.content,
      reasoning: this.reasoning,
      reasoningParts: [...this.reasoningParts],
      toolCalls,
      malformedToolCalls,
      finishReason: this.finishReason,
      // Zeros when the provider reported nothing: an honest "unknown", never an estimate.
      usage: this.usage ?? { ...NO_USAGE },
    };
  }
}
