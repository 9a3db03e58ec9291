import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
 * embedded process on SQLite, 32 at a time, `?wait=true`. Heap used after forced GC once 500 runs (a quarter of fewer) warmed it up
 * and again after the soak, each after the 35 s finished runs keep their live event log (for late SSE
 * subscribers); and right after the soak, before that retention ends, to show what it holds.
 * `node -r @swc-node/register bench/soak.bench.ts`
 */
const RUNS = benchSize('BENCH_SOAK_RUNS', 2000, 1000);
const WARM_UP = Math.min(500, Math.ceil(RUNS / 4));
const CLIENTS = 32;
/** RunEventsService keeps a finished run's log 30 s. */
const SETTLE_MS = 35_000;

export async function benchSoak(): Promise<Record<string, number>> {
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
    const drive = async (count: number): Promise<void> => {
      llm.reset();
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
    };
    const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
    await drive(WARM_UP);
    llm.reset();
    const before = await heapAfterGc(SETTLE_MS);
    await drive(RUNS);
    // The scripted model lives in this process and keeps every request it answered (2 per run, a few KB each):
    // forget them, or the soak measures the mock (about 4 KB per run) instead of the service.
    llm.reset();
    const retaining = await heapAfterGc(0);
    const after = await heapAfterGc(SETTLE_MS);
    return {
      runs: RUNS,
      'heap after GC, after warm-up (MB)': mb(before),
      'heap after GC, right after the runs (MB)': mb(retaining),
      'heap after GC, 35 s later (MB)': mb(after),
      'growth (MB)': mb(after - before),
      'growth per run (bytes)': Math.round((after - before) / RUNS),
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
