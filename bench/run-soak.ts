import { ADMIN_KEY, startTestApp } from '../test/support/test-app';
import { WorkflowApi } from '../test/support/workflow-api';
import { measureHeapGrowth } from './heap-growth';

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
  await measureHeapGrowth({ label: 'runs', count: RUNS, warmUp: WARM_UP, settleMs: SETTLE_MS, step: run });
  await app.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
