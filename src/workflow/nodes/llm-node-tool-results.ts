import type { ToolResultLimit } from '../../agent/agent-loop';
import { readToolResultTool } from '../../agent/read-tool-result';
import type { ToolDefinition } from '../../shared/tool-definition';
import type { NodeServices } from './node-handler';

/** The LLM node's fields about long tool results. */
interface ToolResultFields {
  max_tool_result_tokens?: number;
  summarize_results?: boolean;
  summarize_model?: string;
}

/** Cutting of long tool results, with the reader tool over this run's stored results; off without a store. */
export function resultLimit(
  data: ToolResultFields,
  deps: NodeServices,
  runId: string,
  nodeId: string,
  summarize: ToolResultLimit['summarize'],
): { limit: ToolResultLimit; reader: ToolDefinition } | undefined {
  if (deps.toolResults === undefined) return undefined;
  const { store } = deps.toolResults;
  const maxTokens = data.max_tool_result_tokens ?? deps.toolResults.maxTokens;
  // Pages of one result are often read one after the other, or all at once: fetch each result once per node.
  const fetched = new Map<string, Promise<string | null>>();
  const read = (ref: string): Promise<string | null> => {
    let content = fetched.get(ref);
    if (content === undefined) {
      content = store.read(runId, ref);
      content.catch(() => fetched.delete(ref));
      fetched.set(ref, content);
    }
    return content;
  };
  const reader = readToolResultTool(read, maxTokens);
  const limit: ToolResultLimit = {
    maxTokens,
    store: (call, content) => store.store({ runId, nodeId, callId: call.id, toolName: call.name, content }),
    ...(summarize ? { summarize } : {}),
  };
  return { limit, reader };
}

/** How long tool results are summarized (summarize_results); undefined: they are cut instead. */
export function summarizing(
  data: ToolResultFields,
  deps: NodeServices,
  providerName: string,
  model: string,
  contextWindow: number,
): ToolResultLimit['summarize'] {
  if (!data.summarize_results) return undefined;
  const summaryModel = data.summarize_model ?? model;
  const summaryWindow =
    data.summarize_model === undefined ? contextWindow : deps.providers.contextWindow(providerName, summaryModel);
  // The summarising model reads at most half its window of the result; the rest is its answer and headroom.
  return { model: summaryModel, inputTokens: Math.floor(summaryWindow / 2) };
}
