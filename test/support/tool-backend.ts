import { performance } from 'node:perf_hooks';
import { type HttpTestServer, sendJson, startHttpTestServer } from './http-test-server';

/** One request the backend answered, with when it started and ended (same clock as the test). */
export interface ToolHit {
  path: string;
  params: Record<string, string>;
  startedAt: number;
  endedAt: number;
  /** How many other requests were being answered when this one arrived. */
  othersInFlight: number;
}

export interface ToolBackend {
  origin: string;
  hits: ToolHit[];
  /** `?id=` of the requests that arrived while holding and wait for `release(id)`, in arrival order. */
  held: string[];
  /** From now on every request waits, unanswered, until the test calls `release` with its `?id=`. */
  hold(): void;
  release(id: string): void;
  /** Stops holding and answers every request still held. */
  releaseAll(): void;
  /** Forgets the requests answered so far (`hits` and the server's recorded requests), e.g. between a soak's readings. */
  reset(): void;
  close(): Promise<void>;
}

/** `line 0` to `line N-1`, one a line: a long text whose every part says where it is. */
export const numberedLines = (count: number): string =>
  Array.from({ length: count }, (_, index) => `line ${index}`).join('\n');

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * A loopback HTTP server standing in for the services tools call. `?delay=<ms>` delays the answer; `hold()` makes
 * answers wait for the test's `release(id)`, so tests force an order instead of timing one.
 * `/weather?city=X` answers a fixed forecast, `/text?lines=N` the text of numberedLines(N), every other path echoes
 * its query.
 */
export async function startToolBackend(): Promise<ToolBackend> {
  const hits: ToolHit[] = [];
  const held: string[] = [];
  const releases = new Map<string, () => void>();
  let holding = false;
  let inFlight = 0;
  const release = (id: string) => {
    const index = held.indexOf(id);
    if (index >= 0) held.splice(index, 1);
    releases.get(id)?.();
    releases.delete(id);
  };
  const server: HttpTestServer = await startHttpTestServer(async (recorded, response) => {
    const startedAt = performance.now();
    const othersInFlight = inFlight++;
    const url = new URL(recorded.url, 'http://backend');
    const params = Object.fromEntries(url.searchParams);
    try {
      if (holding) {
        const id = params.id ?? '';
        await new Promise<void>((resolve) => {
          releases.set(id, resolve);
          held.push(id);
        });
      }
      await sleep(Number(params.delay ?? 0));
    } finally {
      inFlight--;
    }
    if (url.pathname === '/text') {
      hits.push({ path: url.pathname, params, startedAt, endedAt: performance.now(), othersInFlight });
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(numberedLines(Number(params.lines ?? 0)));
      return;
    }
    const body =
      url.pathname === '/weather'
        ? { city: params.city ?? null, temp_c: 21, condition: 'sunny' }
        : { path: url.pathname, ...params };
    hits.push({ path: url.pathname, params, startedAt, endedAt: performance.now(), othersInFlight });
    if (!response.destroyed) sendJson(response, 200, body);
  });
  return {
    origin: server.origin,
    hits,
    held,
    hold: () => {
      holding = true;
    },
    release,
    releaseAll: () => {
      holding = false;
      for (const id of [...releases.keys()]) release(id);
    },
    reset: () => {
      hits.length = 0;
      server.requests.length = 0;
    },
    close: () => server.close(),
  };
}
