import { performance } from 'node:perf_hooks';
import { type HttpTestServer, sendJson, startHttpTestServer } from './http-test-server';

/** One request the backend answered, with when it started and ended (same clock as the test). */
export interface ToolHit {
  path: string;
  params: Record<string, string>;
  startedAt: number;
  endedAt: number;
}

export interface ToolBackend {
  origin: string;
  hits: ToolHit[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * A loopback HTTP server standing in for the services tools call. `?delay=<ms>` delays the answer;
 * `/weather?city=X` answers a fixed forecast, every other path echoes its query.
 */
export async function startToolBackend(): Promise<ToolBackend> {
  const hits: ToolHit[] = [];
  const server: HttpTestServer = await startHttpTestServer(async (recorded, response) => {
    const startedAt = performance.now();
    const url = new URL(recorded.url, 'http://backend');
    const params = Object.fromEntries(url.searchParams);
    await sleep(Number(params.delay ?? 0));
    const body =
      url.pathname === '/weather'
        ? { city: params.city ?? null, temp_c: 21, condition: 'sunny' }
        : { path: url.pathname, ...params };
    hits.push({ path: url.pathname, params, startedAt, endedAt: performance.now() });
    if (!response.destroyed) sendJson(response, 200, body);
  });
  return { origin: server.origin, hits, close: () => server.close() };
}
