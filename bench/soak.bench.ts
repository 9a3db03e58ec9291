import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { writeHeapSnapshot } from 'node:v8';
import { OpenAITestServer } from '../test/support/openai-test-server';
import { ADMIN_KEY, startTestApp } from '../test/support/test-app';
import { startToolBackend } from '../test/support/tool-backend';
import { llmEnv } from '../test/support/workflow-fixtures';
import { benchSize } from './bench-size';
import { heapAfterGc } from './heap-growth';
import { sqlite } from './run-cost.bench';
import { ANSWER, installToolRound, toolRoundTurn } from './tool-round';

/**
 * Soak (issue 25): BENCH_SOAK_RUNS runs (default 2000) of the throughput bench's workflow (one tool round) in one
 * embedded process on SQLite, 32 at a time, `?wait=true`. Heap used after forced GC once 500 runs (a quarter of
 * fewer) warmed it up and again after the soak, each after the 35 s finished runs keep their live event log (for
 * late SSE subscribers); in between, after every tenth of the runs, without that wait. Prints whether the growth
 * is within the issue's 10 MB. `BENCH_SOAK_SNAPSHOTS=dir` also writes a heap snapshot at the first and the last
 * reading, for `bench/heap-snapshot-diff.ts`.
 * `node -r @swc-node/register bench/soak.bench.ts`
 */
const RUNS = benchSize('BENCH_SOAK_RUNS', 2000, 1000);
const WARM_UP = Math.min(500, Math.ceil(RUNS / 4));
const CLIENTS = 32;
/** RunEventsService keeps a finished run's log 30 s. */
const SETTLE_MS = 35_000;
/** Issue 25: heap after GC flat within 10 MB after warm-up. */
const TARGET_MB = 10;
/** A folder: write a heap snapshot there at the first and the last reading (`bench/heap-snapshot-diff.ts` compares them). */
const SNAPSHOTS = process.env.BENCH_SOAK_SNAPSHOTS;
const snapshot = async (name: string): Promise<void> => {
  if (!SNAPSHOTS) return;
  console.log(`heap snapshot: ${writeHeapSnapshot(join(SNAPSHOTS, `${name}.heapsnapshot`))}`);
  // Writing it blocks the event loop for seconds; let the loop's clock and the servers' timers catch up.
  await new Promise((resolve) => setTimeout(resolve, 2000));
};

export async function benchSoak(): Promise<Record<string, number | string>> {
  const llm = await OpenAITestServer.start();
  const backend = await startToolBackend();
  const data = await sqlite.create();
  const app = await startTestApp(llmEnv(llm, { LOG_LEVEL: 'silent', MAX_CONCURRENT_RUNS: String(CLIENTS) }), {
    databaseUrl: data.url,
  });
  try {
    const server = app.app.getHttpServer() as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const baseUrl = `${origin}/api/v1`;
    const headers = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
    const post = (path: string, body: unknown) =>
      fetch(`${baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const workflowId = await installToolRound(origin, backend, 'throughput');
    // The scripted model and the tool backend live in this process and keep every request they answered (2 model
    // requests per run, a few KB each; one tool request, about 500 bytes): forgotten before each reading, or the soak
    // measures the mocks (about 4.7 KB per run) instead of the service.
    const forgetRequests = (): void => {
      llm.reset();
      backend.reset();
    };
    const drive = async (count: number): Promise<void> => {
      forgetRequests();
      llm.script(Array.from({ length: 2 * count + CLIENTS }, toolRoundTurn()));
      let next = 0;
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (next < count) {
            next += 1;
            const response = await post(`/workflows/${workflowId}/runs?wait=true`, { inputs: { question: 'Go.' } });
            const body = (await response.json()) as { outputs?: { answer?: string } };
            if (body.outputs?.answer !== ANSWER) throw new Error(`run: ${JSON.stringify(body)}`);
          }
        }),
      );
      forgetRequests();
    };
    const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
    await drive(WARM_UP);
    const before = await heapAfterGc(SETTLE_MS);
    await snapshot('before');
    // A reading after every tenth of the runs (no wait: each holds the last 30 s of finished runs' logs, about the same
    // amount at a steady rate), to tell growth that levels off from growth that goes on.
    const curve: number[] = [];
    const startedAt = performance.now();
    for (let done = 0; done < RUNS;) {
      const count = Math.min(Math.ceil(RUNS / 10), RUNS - done);
      await drive(count);
      done += count;
      curve.push(await heapAfterGc(0));
    }
    const runsPerSecond = RUNS / ((performance.now() - startedAt) / 1000);
    const rightAfter = curve.at(-1) ?? before;
    const after = await heapAfterGc(SETTLE_MS);
    await snapshot('after');
    const growth = mb(after - before);
    return {
      runs: RUNS,
      'heap after GC, after warm-up (MB)': mb(before),
      'heap after GC after each tenth of the runs (MB)': curve.map(mb).join(' '),
      'heap after GC, 35 s after the runs (MB)': mb(after),
      'runs/s (readings included)': Math.round(runsPerSecond * 10) / 10,
      "freed meanwhile: the last 30 s of finished runs' logs (MB)": mb(rightAfter - after),
      'growth (MB)': growth,
      'growth per run (bytes)': Math.round((after - before) / RUNS),
      [`target: flat within ${TARGET_MB} MB`]: growth <= TARGET_MB ? 'met' : 'MISSED',
    };
  } finally {
    await app.close();
    await data.drop();
    await llm.close();
    await backend.close();
  }
}

if (require.main === module) {
  benchSoak().then(
    (results) => console.table(results),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
