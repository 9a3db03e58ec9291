import { ADMIN_KEY, startTestApp } from '../test/support/test-app';
import { WorkflowApi } from '../test/support/workflow-api';

/**
 * Soak: workflow runs with no LLM node (start → template → end) through the real app on a throwaway
 * SQLite file; heap after forced GC before and after. Half the runs are of a stored workflow, half
 * inline. `node --expose-gc -r @swc-node/register bench/run-soak.ts [runs]` (default 5000).
 */
const RUNS = Number(process.argv[2] ?? 5000);
const WARM_UP = 200;
/** Finished runs keep their live events 30 s for late SSE subscribers; that is retention, not a leak. */
const SETTLE_MS = 35_000;

const definition = (name: string) => ({
  name,
  inputs: { type: 'object', properties: { city: { type: 'string', pattern: '^[A-Za-z ]+$' } }, required: ['city'] },
  nodes: [
    { id: 'start', type: 'start', data: {} },
    { id: 'greet', type: 'template', data: { template: 'Weather in {{inputs.city}}' } },
    { id: 'end', type: 'end', data: { outputs: { text: '{{greet.output}}' } } },
  ],
  edges: [
    { source: 'start', target: 'greet' },
    { source: 'greet', target: 'end' },
  ],
});

async function heapAfterGc(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run node with --expose-gc');
  for (let round = 0; round < 3; round++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return process.memoryUsage().heapUsed;
}

async function main(): Promise<void> {
  const app = await startTestApp({ LOG_LEVEL: 'silent' });
  const api = new WorkflowApi(app.http, ADMIN_KEY);
  const created = await api.post('/workflows', definition('soak')).expect(201);
  const workflowId = (created.body as { id: string }).id;
  const run = async (index: number): Promise<void> => {
    const response =
      index % 2 === 0
        ? await api.post(`/workflows/${workflowId}/runs?wait=true`, { inputs: { city: 'Paris' } })
        : await api.post('/workflow-runs?wait=true', { definition: definition('inline'), inputs: { city: 'Oslo' } });
    if ((response.body as { status?: string }).status !== 'succeeded') throw new Error(JSON.stringify(response.body));
  };
  for (let index = 0; index < WARM_UP; index++) await run(index);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const before = await heapAfterGc();
  for (let index = 0; index < RUNS; index++) await run(index);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const after = await heapAfterGc();
  await app.close();
  const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);
  console.log(
    `${RUNS} runs: heap after GC ${mb(before)} MB -> ${mb(after)} MB ` +
      `(${mb(after - before)} MB, ${((after - before) / RUNS).toFixed(0)} bytes per run)`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
