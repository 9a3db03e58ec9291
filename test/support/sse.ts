import request from 'supertest';
import type { App } from 'supertest/types';

export interface SseMessage {
  id: number | null;
  event: string;
  data: Record<string, unknown>;
}

/** Parses a complete `text/event-stream` body; comments (heartbeats) are skipped. */
export function parseSse(text: string): SseMessage[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => {
      const fields = new Map<string, string>();
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
      }
      const id = fields.get('id');
      return {
        id: id === undefined ? null : Number(id),
        event: fields.get('event') ?? 'message',
        data: JSON.parse(fields.get('data') ?? '{}') as Record<string, unknown>,
      };
    });
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
