import type { ResponseCreateParamsStreaming } from 'openai/resources/responses/responses';
import { OpenAISdkProvider } from './openai-sdk-provider';
import { ResponsesStreamReader, toResponsesBody } from './openai-responses';
import type { ChatRequest } from './provider';
import { readEvents } from './read-events';
import type { StreamedAnswerResult } from './streamed-answer';
import type { ProviderAttempt } from './streaming-provider';

/**
 * `ChatProvider` for the OpenAI Responses API (`POST {baseUrl}/responses`, streaming), through the official
 * SDK. A stream that ends without `response.completed` (or `.incomplete`) was cut off and is retried.
 */
export class OpenAIResponsesProvider extends OpenAISdkProvider<ResponseCreateParamsStreaming> {
  protected toBody(request: ChatRequest): ResponseCreateParamsStreaming {
    return toResponsesBody(request);
  }

  protected async stream(body: ResponseCreateParamsStreaming, attempt: ProviderAttempt): Promise<StreamedAnswerResult> {
    const events = await this.client.responses.create(body, { signal: attempt.signal });
    return readEvents(events, new ResponsesStreamReader(), attempt, 'response.completed');
  }
}
