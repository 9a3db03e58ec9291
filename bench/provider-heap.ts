import { OpenAIChatProvider } from '../src/llm/openai-chat.provider';
import { OpenAITestServer, reply } from '../test/support/openai-test-server';

/**
 * Heap growth per provider call against the local test server, after forced GC.
 * `node --expose-gc -r @swc-node/register bench/provider-heap.ts [calls]`
 * Each call gets a signal of its own, as each LLM node of a run does.
 */
const CALLS = Number(process.argv[2] ?? 3000);
const WARM_UP = 200;

async function heapAfterGc(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run node with --expose-gc');
  for (let round = 0; round < 3; round++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

async function main(): Promise<void> {
  const server = await OpenAITestServer.start();
  const provider = new OpenAIChatProvider({ name: 'heap', baseUrl: server.baseUrl, apiKey: 'sk-test' });
  const call = async (): Promise<void> => {
    server.script([reply.text('Sunny and mild.')]);
    const run = new AbortController();
    await provider.chat({ model: 'm', messages: [{ role: 'user', content: 'Weather?' }] }, { signal: run.signal });
    server.reset();
  };
  for (let index = 0; index < WARM_UP; index++) await call();
  const before = await heapAfterGc();
  for (let index = 0; index < CALLS; index++) await call();
  const after = await heapAfterGc();
  await server.close();
  const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);
  console.log(
    `${CALLS} calls: heap after GC ${mb(before)} MB -> ${mb(after)} MB, ` +
      `${((after - before) / CALLS).toFixed(0)} bytes per call`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
