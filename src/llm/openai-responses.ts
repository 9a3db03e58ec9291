import type {
  ResponseCreateParamsStreaming,
  ResponseInputItem,
  ResponseStreamEvent,
  ResponseUsage,
  ToolChoiceOptions,
  ToolChoiceFunction,
} from 'openai/resources/responses/responses';
import type { ChatMessage, ReasoningPart } from '../shared/chat-types';
import { isRecord } from '../shared/is-record';
import type { ChatRequest, ToolChoice } from './provider';
import { isOpenAIReasoningModel } from './reasoning-model';
import { RetryableProviderError } from './retry';
import type { StreamChunk } from './stream-chunk';

export const RESPONSES_PROTOCOL = 'openai-responses';

/**
 * The internal request as a Responses API body. Nothing is stored at OpenAI (`store: false`): reasoning
 * travels back as encrypted content, asked for with `include`.
 */
export function toResponsesBody(request: ChatRequest): ResponseCreateParamsStreaming {
  const hasTools = request.tools !== undefined && request.tools.length > 0;
  return {
    model: request.model,
    input: toResponsesInput(request.messages),
    stream: true,
    store: false,
    // Only reasoning models accept the include; others reason not at all.
    ...(request.reasoningEffort !== undefined || isOpenAIReasoningModel(request.model)
      ? { include: ['reasoning.encrypted_content' as const] }
      : {}),
    ...(hasTools
      ? {
          tools: (request.tools ?? []).map((tool) => ({
            type: 'function' as const,
            name: tool.function.name,
            description: tool.function.description ?? null,
            parameters: tool.function.parameters,
            // Responses makes tools strict unless told otherwise; our schemas are not written for strict mode.
            strict: tool.function.strict ?? false,
          })),
          ...(request.toolChoice === undefined ? {} : { tool_choice: toToolChoice(request.toolChoice) }),
          ...(request.parallelToolCalls === undefined ? {} : { parallel_tool_calls: request.parallelToolCalls }),
        }
      : {}),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.maxTokens === undefined ? {} : { max_output_tokens: request.maxTokens }),
    ...(request.reasoningEffort === undefined ? {} : { reasoning: { effort: request.reasoningEffort } }),
    ...(request.responseFormat === undefined
      ? {}
      : { text: { format: { type: 'json_schema' as const, ...request.responseFormat } } }),
  };
}

function toToolChoice(choice: ToolChoice): ToolChoiceOptions | ToolChoiceFunction {
  return typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
}

/** Reasoning items first (as returned, encrypted content included), then the text, then the calls. */
export function toResponsesInput(messages: readonly ChatMessage[]): ResponseInputItem[] {
  return messages.flatMap((message): ResponseInputItem[] => {
    switch (message.role) {
      case 'system':
      case 'user':
        return [{ role: message.role, content: message.content }];
      case 'tool':
        return [{ type: 'function_call_output', call_id: message.tool_call_id, output: message.content }];
      case 'assistant':
        return [
          ...(message.reasoning_parts ?? []).flatMap(toReasoningItem),
          ...(message.content === null || message.content === ''
            ? []
            : [{ role: 'assistant' as const, content: message.content }]),
          ...(message.tool_calls ?? []).map((call) => ({
            type: 'function_call' as const,
            call_id: call.id,
            name: call.function.name,
            arguments: call.function.arguments,
          })),
        ];
    }
  });
}

function toReasoningItem(part: ReasoningPart): ResponseInputItem[] {
  if (part.protocol !== RESPONSES_PROTOCOL || part.data?.id === undefined) return [];
  return [
    {
      type: 'reasoning',
      id: part.data.id,
      summary: part.text === '' ? [] : [{ type: 'summary_text', text: part.text }],
      ...(part.data.encrypted_content === undefined ? {} : { encrypted_content: part.data.encrypted_content }),
    },
  ];
}

const emptyChunk = (): StreamChunk => ({ content: '', reasoning: '', toolCalls: [], finishReason: null, usage: null });

/**
 * Reads one Responses stream event by event: `function_call` items assembled from
 * `function_call_arguments.delta`/`.done`, text and reasoning summaries streamed, finished reasoning items
 * kept (encrypted content included) for the next request. `response.failed` and `error` events throw
 * with the provider's message.
 */
export class ResponsesStreamReader {
  readonly reasoningParts: ReasoningPart[] = [];
  done = false;
  private calls = 0;
  private readonly arguments = new Map<number, string>();

  read(event: ResponseStreamEvent): StreamChunk {
    const chunk = emptyChunk();
    const type = event.type;
    if (type === 'response.output_item.added' && event.item.type === 'function_call') {
      this.calls += 1;
      this.arguments.set(event.output_index, event.item.arguments ?? '');
      chunk.toolCalls.push({
        index: event.output_index,
        id: event.item.call_id,
        function: { name: event.item.name, arguments: event.item.arguments ?? '' },
      });
    } else if (type === 'response.function_call_arguments.delta') {
      this.arguments.set(event.output_index, (this.arguments.get(event.output_index) ?? '') + event.delta);
      chunk.toolCalls.push({ index: event.output_index, function: { arguments: event.delta } });
    } else if (type === 'response.function_call_arguments.done') {
      // `.done` holds the whole text: whatever the deltas did not bring, and `{}` for an empty input.
      const seen = this.arguments.get(event.output_index) ?? '';
      const whole = event.arguments === '' ? '{}' : event.arguments;
      const rest = whole.startsWith(seen) ? whole.slice(seen.length) : '';
      if (rest !== '') chunk.toolCalls.push({ index: event.output_index, function: { arguments: rest } });
    } else if (type === 'response.output_text.delta') {
      chunk.content = event.delta;
    } else if (type === 'response.reasoning_summary_text.delta' || type === 'response.reasoning_text.delta') {
      chunk.reasoning = event.delta;
    } else if (type === 'response.output_item.done' && event.item.type === 'reasoning') {
      const { id, encrypted_content: encrypted, summary } = event.item;
      this.reasoningParts.push({
        protocol: RESPONSES_PROTOCOL,
        text: summary.map((part) => part.text).join('\n\n'),
        data: { id, ...(typeof encrypted === 'string' ? { encrypted_content: encrypted } : {}) },
      });
    } else if (type === 'response.completed' || type === 'response.incomplete') {
      this.done = true;
      chunk.usage = readUsage(event.response.usage);
      chunk.finishReason = finishReason(event.response.incomplete_details?.reason, this.calls > 0);
    } else if (type === 'response.failed') {
      const message = event.response.error?.message ?? 'the response failed';
      throw new RetryableProviderError(`provider stream error: ${message}`, null);
    } else if (type === 'error') {
      throw new RetryableProviderError(`provider stream error: ${event.message}`, null);
    }
    return chunk;
  }
}

function finishReason(incomplete: string | undefined, calls: boolean): string {
  if (incomplete === 'max_output_tokens') return 'length';
  if (incomplete === 'content_filter') return 'content_filter';
  return calls ? 'tool_calls' : 'stop';
}

function readUsage(usage: ResponseUsage | undefined): StreamChunk['usage'] {
  if (!isRecord(usage)) return null;
  const promptTokens = usage.input_tokens ?? 0;
  const completionTokens = usage.output_tokens ?? 0;
  const cached = usage.input_tokens_details?.cached_tokens ?? 0;
  const reasoning = usage.output_tokens_details?.reasoning_tokens ?? 0;
  return {
    promptTokens,
    completionTokens,
    totalTokens: usage.total_tokens ?? promptTokens + completionTokens,
    ...(cached > 0 ? { cachedPromptTokens: cached } : {}),
    ...(reasoning > 0 ? { reasoningTokens: reasoning } : {}),
  };
}
