import type { ChatProvider, ChatRequest } from '../llm/provider';
import { fitsInTokens, headByTokens } from '../llm/token-count';
import type { TokenUsage } from '../shared/chat-types';
import type { ToolCall } from '../shared/tool-types';
import { CUT_NOTE_START, cutToolResult } from './cut-tool-result';

const SUMMARY_INSTRUCTION =
  'You condense one tool result for an assistant that is working on a task. Write a faithful summary of the ' +
  'result that keeps what the task needs: exact figures, names, identifiers, dates, errors, and how many items ' +
  'there are. Never invent anything that is not in the result. Answer with the summary only.';

export interface SummarizeToolResultInput {
  provider: ChatProvider;
  model: string;
  call: ToolCall;
  /** The whole result. */
  text: string;
  /** The summary gets at most this many tokens (the node's max_tool_result_tokens). */
  maxTokens: number;
  /** The most of the result the summarising model reads; a longer result is cut first (head, tail, JSON shape). */
  inputTokens: number;
  /** What the node was asked, so the summary keeps what matters for it. */
  task: string;
  /** Where the whole result is stored; null when it could not be stored. */
  ref: string | null;
  signal: AbortSignal;
  /** The request as it may be sent (e.g. its output capped to a token budget); null: it may not, and no summary. */
  fit?: (request: ChatRequest) => ChatRequest | null;
}

export interface ToolResultSummary {
  /** The text the model gets: the summary and a note saying where the whole result is. */
  content: string;
  usage: TokenUsage;
}

/**
 * Asks a model to summarise a result too long for the node's limit (`summarize_results`). Returns null when the
 * model wrote nothing; a provider error rejects, and the caller cuts the result instead.
 */
export async function summarizeToolResult(input: SummarizeToolResultInput): Promise<ToolResultSummary | null> {
  const { provider, model, call, text, maxTokens, inputTokens, task, ref, signal, fit } = input;
  const shown = cutToolResult(text, { maxTokens: inputTokens, ref: null }) ?? text;
  const request: ChatRequest = {
    model,
    messages: [
      { role: 'system', content: SUMMARY_INSTRUCTION },
      {
        role: 'user',
        content:
          `Task: ${task}\n\nTool call: ${call.name}(${call.arguments})\n\n` +
          `Result (${text.length} characters):\n${shown}`,
      },
    ],
    maxTokens,
  };
  const sent = fit ? fit(request) : request;
  if (sent === null) return null;
  const response = await provider.chat(sent, { signal });
  const summary = response.content.trim();
  if (summary === '') return null;
  const kept = fitsInTokens(summary, maxTokens) ? summary : headByTokens(summary, maxTokens);
  const read =
    ref === null
      ? 'The full result could not be stored.'
      : `The full result (${text.length} characters) is stored as ref "${ref}": call read_tool_result with ` +
        `{"ref": "${ref}", "offset": <character offset>} to read it in pages.`;
  return {
    // The note of a cut: the reader is offered, and a later short form keeps the ref.
    content: `${kept}\n${CUT_NOTE_START} ${maxTokens} tokens: summarised by ${model}. ${read}]`,
    usage: response.usage,
  };
}
