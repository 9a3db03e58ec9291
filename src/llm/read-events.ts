import type { ReasoningPart } from '../shared/chat-types';
import { RetryableProviderError } from './retry';
import type { StreamChunk } from './stream-chunk';
import type { StreamedAnswerResult } from './streamed-answer';
import type { ProviderAttempt } from './streaming-provider';

/** A protocol's reader of one answer's events: a chunk per event, `done` once the answer's last event came. */
export interface EventReader<Event> {
  read(event: Event): StreamChunk;
  readonly done: boolean;
  /** Signed reasoning items the protocol wants back in the next request. */
  readonly reasoningParts?: readonly ReasoningPart[];
}

/**
 * Feeds every event to the reader until it is done. A stream that stops before was cut off and is retried;
 * `lastEvent` names what it lacked, e.g. `message_stop`.
 */
export async function readEvents<Event>(
  events: AsyncIterable<Event>,
  reader: EventReader<Event>,
  { answer, heard }: ProviderAttempt,
  lastEvent: string,
): Promise<StreamedAnswerResult> {
  for await (const event of events) {
    heard();
    answer.add(reader.read(event));
    if (reader.done) break;
  }
  if (!reader.done) throw new RetryableProviderError(`provider stream ended without ${lastEvent}`, null);
  for (const part of reader.reasoningParts ?? []) answer.addReasoningPart(part);
  return answer.finish();
}
