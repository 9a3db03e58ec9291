import type { RunResponse } from '../runs/run.dto';
import { isRecord } from '../shared/is-record';

/** One tool call of a run as assertions see it: arguments parsed (masked as stored; the raw text if not JSON). */
export interface ObservedToolCall {
  name: string;
  arguments: unknown;
}

/** What assertions look at in a finished run. */
export interface ObservedRun {
  runId: string;
  status: string;
  /** The last LLM node's final text, else the run output `output` when it is text; null when neither. */
  text: string | null;
  /** The run output `data`, else the last LLM node's `data` (structured output); undefined when neither. */
  data: unknown;
  toolCalls: ObservedToolCall[];
  /** The last LLM node's stop_reason (answered, max_iterations …), else the run's. */
  stopReason: string | null;
  totalTokens: number;
  durationMs: number | null;
  error: string | null;
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

/** The observed values of a run read with its node runs (GET /runs/{id}). */
export function observeRun(run: RunResponse): ObservedRun {
  const nodes = run.nodes ?? [];
  const llmOutputs = nodes
    .filter((node) => node.node_type === 'llm' && isRecord(node.output))
    .map((node) => node.output as Record<string, unknown>);
  const lastLlm = llmOutputs.at(-1);
  const outputs = run.outputs ?? {};
  const text =
    typeof lastLlm?.output === 'string' ? lastLlm.output : typeof outputs.output === 'string' ? outputs.output : null;
  const stopReason = typeof lastLlm?.stop_reason === 'string' ? lastLlm.stop_reason : run.stop_reason;
  return {
    runId: run.id,
    status: run.status,
    text,
    data: 'data' in outputs ? outputs.data : lastLlm?.data,
    toolCalls: nodes.flatMap((node) =>
      node.tool_calls.map((call) => ({ name: call.tool_name, arguments: parsed(call.input) })),
    ),
    stopReason,
    totalTokens: run.usage?.total_tokens ?? 0,
    durationMs: run.duration_ms,
    error: run.error,
  };
}
