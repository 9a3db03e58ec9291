import request from 'supertest';
import type { App } from 'supertest/types';

export interface SseMessage {
  id: number | null;
  event: string;
  data: Record<string, unknown>;
}

/** Parses a complete `text/event-stream` body; comment lines (heartbeats) and blocks without fields are skipped. */
export function parseSse(text: string): SseMessage[] {
  const messages: SseMessage[] = [];
  for (const block of text.split('\n\n')) {
    const fields = new Map<string, string>();
    for (const line of block.split('\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
    }
    if (fields.size === 0) continue;
    const id = fields.get('id');
    messages.push({
      id: id === undefined ? null : Number(id),
      event: fields.get('event') ?? 'message',
      data: JSON.parse(fields.get('data') ?? '{}') as Record<string, unknown>,
    });
  }
  return messages;
}

export interface SseResponse {
  status: number;
  contentType: string;
  events: SseMessage[];
}

/** Reads GET /runs/:id/events until the server ends the stream (after run.finished). */
export async function readRunEvents(
  http: App,
  runId: string,
  key: string,
  headers: Record<string, string> = {},
): Promise<SseResponse> {
  const pending = request(http)
    .get(`/api/v1/runs/${runId}/events`)
    .set({ Authorization: `Bearer ${key}`, ...headers });
  const response = await pending.buffer(true).parse((stream, callback) => {
    let text = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (text += chunk));
    stream.on('end', () => callback(null, text));
  });
  return {
    status: response.status,
    contentType: String(response.headers['content-type']),
    events: response.status === 200 ? parseSse(response.body as string) : [],
  };
}
