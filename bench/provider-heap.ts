import { OpenAIChatProvider } from '../src/llm/openai-chat.provider';
import { OpenAITestServer, reply } from '../test/support/openai-test-server';
import { measureHeapGrowth } from './heap-growth';

/**
 * Heap growth per provider call against the local test server, after forced GC.
 * `node --expose-gc -r @swc-node/register bench/provider-heap.ts [calls]`
 * Each call gets a signal of its own, as each LLM node of a run does.
 */
const CALLS = Number(process.argv[2] ?? 3000);
const WARM_UP = 200;

async function main(): Promise<void> {
  const server = await OpenAITestServer.start();
  const provider = new OpenAIChatProvider({ name: 'heap', baseUrl: server.baseUrl, apiKey: 'sk-test' });
  const call = async (): Promise<void> => {
    server.script([reply.text('Sunny and mild.')]);
    const run = new AbortController();
    await provider.chat({ model: 'm', messages: [{ role: 'user', content: 'Weather?' }] }, { signal: run.signal });
    server.reset();
  };
  await measureHeapGrowth({ label: 'calls', count: CALLS, warmUp: WARM_UP, step: call });
  await server.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
