import { OpenAITestServer, reply } from '../test/support/openai-test-server';
import { ADMIN_KEY, startTestApp } from '../test/support/test-app';
import { WorkflowApi } from '../test/support/workflow-api';
import { agentWorkflow, llmEnv } from '../test/support/workflow-fixtures';
import { measureHeapGrowth } from './heap-growth';

/**
 * Heap growth per workflow run (start → LLM node → end) through the real app on a throwaway SQLite file,
 * after forced GC. `node --expose-gc -r @swc-node/register bench/run-heap.ts [runs]`
 */
const RUNS = Number(process.argv[2] ?? 1000);
const WARM_UP = 100;
/** Finished runs keep their live events 30 s for late SSE subscribers; that is retention, not a leak. */
const SETTLE_MS = 35_000;

async function main(): Promise<void> {
  const llm = await OpenAITestServer.start();
  const app = await startTestApp(llmEnv(llm));
  const api = new WorkflowApi(app.http, ADMIN_KEY);
  const created = await api.post('/workflows', agentWorkflow({})).expect(201);
  const workflowId = (created.body as { id: string }).id;
  const run = async (): Promise<void> => {
    llm.script([reply.text('Sunny and mild.')]);
    const response = await api.post(`/workflows/${workflowId}/runs?wait=true`, { inputs: { question: 'Weather?' } });
    if ((response.body as { status?: string }).status !== 'succeeded') throw new Error(JSON.stringify(response.body));
    llm.reset();
  };
  await measureHeapGrowth({ label: 'runs', count: RUNS, warmUp: WARM_UP, settleMs: SETTLE_MS, step: run });
  await app.close();
  await llm.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
