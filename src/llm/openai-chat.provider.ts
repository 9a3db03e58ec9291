import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type { ChatMessage } from '../shared/chat-types';
import { parseStreamEvent, readAnswerBody } from './answer-body';
import { OpenAISdkProvider } from './openai-sdk-provider';
import type { ChatRequest, ToolChoice } from './provider';
import { RetryableProviderError } from './retry';
import { isOpenAIReasoningModel } from './reasoning-model';
import { readCompletion, readStreamChunk } from './stream-chunk';
import type { StreamedAnswerResult } from './streamed-answer';
import type { ProviderAttempt, ProviderOptions } from './streaming-provider';

export { DEFAULT_CALL_BUDGET_MS, DEFAULT_TIMEOUT_MS } from './streaming-provider';

/** `baseUrl` goes up to and including `/v1`, e.g. `http://127.0.0.1:11434/v1`. */
export type OpenAIChatProviderOptions = ProviderOptions;

/**
 * `ChatProvider` for any OpenAI-compatible Chat Completions endpoint. Always asks for a stream, and takes
 * a plain `chat.completion` JSON from servers that ignore that. A stream that ends with neither a
 * finish_reason nor `[DONE]` was cut off and is retried.
 */
export class OpenAIChatProvider extends OpenAISdkProvider<ChatCompletionCreateParamsStreaming> {
  protected toBody(request: ChatRequest): ChatCompletionCreateParamsStreaming {
    return toChatCompletionBody(request);
  }

  protected async stream(
    body: ChatCompletionCreateParamsStreaming,
    { signal, answer, heard }: ProviderAttempt,
  ): Promise<StreamedAnswerResult> {
    const response = await this.client.chat.completions.create(body, { signal }).asResponse();
    const content = await readAnswerBody(response);
    if (content.kind === 'completion') {
      answer.add(readCompletion(content.completion));
      return answer.finish();
    }
    let done = false;
    for await (const event of content.events) {
      heard();
      if (event.data.startsWith('[DONE]')) {
        done = true;
        break;
      }
      answer.add(readStreamChunk(parseStreamEvent(event, response.headers)));
    }
    const result = answer.finish();
    if (!done && result.finishReason === null) {
      throw new RetryableProviderError('provider stream ended without finish_reason or [DONE]', null);
    }
    return result;
  }
}

export function toChatCompletionBody(request: ChatRequest): ChatCompletionCreateParamsStreaming {
  const hasTools = request.tools !== undefined && request.tools.length > 0;
  // Reasoning models refuse `max_tokens` and want `max_completion_tokens`.
  const reasoningModel = isOpenAIReasoningModel(request.model);
  return {
    model: request.model,
    messages: request.messages.map(toMessageParam),
    stream: true,
    stream_options: { include_usage: true },
    tools: hasTools ? request.tools?.map((tool) => ({ ...tool, function: { ...tool.function } })) : undefined,
    tool_choice: hasTools && request.toolChoice !== undefined ? toToolChoice(request.toolChoice) : undefined,
    // OpenAI rejects parallel_tool_calls when no tools are sent.
    parallel_tool_calls: hasTools ? request.parallelToolCalls : undefined,
    temperature: request.temperature,
    max_tokens: reasoningModel ? undefined : request.maxTokens,
    max_completion_tokens: reasoningModel ? request.maxTokens : undefined,
    reasoning_effort: request.reasoningEffort,
    response_format: request.responseFormat && { type: 'json_schema', json_schema: { ...request.responseFormat } },
  };
}

/** Only the Chat Completions fields: reasoning parts and error flags of other protocols stay home. */
function toMessageParam(message: ChatMessage): ChatCompletionCreateParamsStreaming['messages'][number] {
  switch (message.role) {
    case 'assistant': {
      const { reasoning_parts: _parts, ...rest } = message;
      return rest;
    }
    case 'tool': {
      const { is_error: _isError, ...rest } = message;
      return rest;
    }
    case 'system':
    case 'user':
      return { ...message };
  }
}

function toToolChoice(choice: ToolChoice): ChatCompletionToolChoiceOption {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}
