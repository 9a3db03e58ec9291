import type OpenAI from 'openai';
import type { ResponseCreateParamsStreaming } from 'openai/resources/responses/responses';
import { createOpenAIClient } from './openai-client';
import { toProviderError } from './openai-error';
import { ResponsesStreamReader, toResponsesBody } from './openai-responses';
import type { ChatRequest, ProviderError } from './provider';
import { RetryableProviderError } from './retry';
import type { StreamedAnswerResult } from './streamed-answer';
import { StreamingProvider, type ProviderAttempt, type ProviderOptions } from './streaming-provider';

/**
 * `ChatProvider` for the OpenAI Responses API (`POST {baseUrl}/responses`, streaming), through the official
 * SDK. A stream that ends without `response.completed` (or `.incomplete`) was cut off and is retried.
 */
export class OpenAIResponsesProvider extends StreamingProvider<ResponseCreateParamsStreaming> {
  // Private field (#) so neither JSON.stringify nor util.inspect can show the API key the client holds.
  readonly #client: OpenAI;

  constructor(options: ProviderOptions) {
    super(options);
    this.#client = createOpenAIClient(options);
  }

  protected toBody(request: ChatRequest): ResponseCreateParamsStreaming {
    return toResponsesBody(request);
  }

  protected toProviderError(error: unknown): ProviderError {
    return toProviderError(error, this.now);
  }

  protected async stream(
    body: ResponseCreateParamsStreaming,
    { signal, answer, heard }: ProviderAttempt,
  ): Promise<StreamedAnswerResult> {
    const reader = new ResponsesStreamReader();
    const events = await this.#client.responses.create(body, { signal });
    for await (const event of events) {
      heard();
      answer.add(reader.read(event));
      if (reader.done) break;
    }
    if (!reader.done) throw new RetryableProviderError('provider stream ended without response.completed', null);
    for (const part of reader.reasoningParts) answer.addReasoningPart(part);
    return answer.finish();
  }
}
