import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export const REQUEST_ID_HEADER = 'X-Request-Id';

// A caller's id is echoed into headers and logs, so only plain tokens are taken over.
const ACCEPTED_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/** The id of the HTTP request the current code runs for (services are not HTTP-aware, the audit trail needs it). */
const requestIds = new AsyncLocalStorage<string>();

/**
 * First middleware of the app: the caller's X-Request-Id (or a new UUID) becomes `request.id`, the response
 * header, pino's request id (every log line), `request_id` in problem bodies and `currentRequestId()` for
 * everything the request runs.
 */
export function assignRequestId(request: IncomingMessage, response: ServerResponse, next: () => void): void {
  const given = request.headers['x-request-id'];
  const id = typeof given === 'string' && ACCEPTED_ID.test(given) ? given : randomUUID();
  request.id = id;
  response.setHeader(REQUEST_ID_HEADER, id);
  requestIds.run(id, next);
}

/** pino-http's genReqId: the id assignRequestId gave the request. */
export const requestIdOf = (request: IncomingMessage): string =>
  typeof request.id === 'string' ? request.id : randomUUID();

/** The X-Request-Id of the request being served; null outside one (a run on a worker, a start-up task). */
export const currentRequestId = (): string | null => requestIds.getStore() ?? null;
