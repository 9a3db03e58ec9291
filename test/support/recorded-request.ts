import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** One request a scripted LLM test server received, as tests read it back. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body; `{}` when the body was not JSON (see `rawBody`). */
  body: Record<string, unknown>;
  rawBody: string;
}

/** Reads `request`'s body to the end and records it (the JSON object body parsed, anything else kept raw). */
export async function recordRequest(request: IncomingMessage): Promise<RecordedRequest> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  const rawBody = Buffer.concat(parts).toString('utf8');
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(rawBody);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      body = parsed as Record<string, unknown>;
  } catch {
    body = {};
  }
  return { method: request.method ?? 'GET', path: request.url ?? '/', headers: request.headers, body, rawBody };
}
