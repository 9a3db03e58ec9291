import type { ChatProvider } from '../../llm/provider';
import type { ToolCall } from '../../shared/tool-types';

/**
 * How the LLM nodes of one run reach their providers: every run records its model calls; a replay answers them
 * from a recording instead. The runner gives each run one; a node asks it for the provider it calls.
 */
export interface ModelCalls {
  /** The provider `nodeId` calls in this run (inside `item`, see RunContext.item), wrapping the configured one. */
  provider(nodeId: string, provider: ChatProvider, item?: string): ChatProvider;
  /**
   * A replay with recorded tools: the result the recording holds for this call (what the model was sent), or
   * undefined to run the tool. Absent: every tool runs.
   */
  recordedToolResult?(nodeId: string, call: ToolCall, item?: string): { content: string; isError: boolean } | undefined;
}
