import OpenAI from 'openai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { nodeHttpFetch } from '../src/llm/node-http-fetch';
import { median } from './median';

const CALLS = 300;
const ROUNDS = 8;

/** A streamed answer with two tool calls, from a server in its own process (its CPU is not counted). */
const SERVER = `
const chunk = (delta, extra = {}) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, ...extra }] });
const chunks = [
  chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { name: 'ping', arguments: '' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"id":"r0c0"}' } }] }),
  chunk({ tool_calls: [{ index: 1, id: 'call_1', type: 'function', function: { name: 'ping', arguments: '{"id":"r0c1"}' } }] }),
  { ...chunk({}, { finish_reason: 'tool_calls' }), usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } },
];
const body = chunks.map((c) => 'data: ' + JSON.stringify(c) + '\\n\\n').join('') + 'data: [DONE]\\n\\n';
const server = require('node:http').createServer((request, response) => {
  request.resume();
  request.on('end', () => { response.writeHead(200, { 'content-type': 'text/event-stream' }); response.end(body); });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

/**
 * CPU of one streamed Chat Completions call through the official SDK, its default fetch (Node's undici) against
 * nodeHttpFetch (node:http, kept-alive agent), as src/llm's clients send them: a 12-message conversation and a
 * tool, the answer read to its end. Rounds of CALLS calls alternate; medians of the rounds, µs of process CPU.
 * `node -r @swc-node/register bench/provider-fetch.bench.ts`
 */
export async function benchProviderFetch(): Promise<Record<string, number>> {
  const server = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [port] = (await once(server.stdout, 'data')) as [Buffer];
  const baseURL = `http://127.0.0.1:${port.toString().trim()}/v1`;
  const clients = {
    undici: new OpenAI({ baseURL, apiKey: 'bench', maxRetries: 0 }),
    'node:http': new OpenAI({ baseURL, apiKey: 'bench', maxRetries: 0, fetch: nodeHttpFetch }),
  };
  const messages = Array.from({ length: 12 }, (_, index) => ({
    role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: `${'some text of a conversation '.repeat(12)}${index}`,
  }));
  const tools = [{ type: 'function' as const, function: { name: 'ping', parameters: { type: 'object' } } }];
  const call = async (client: OpenAI) => {
    const stream = await client.chat.completions.create({ model: 'm', messages, tools, stream: true });
    for await (const chunk of stream) if (chunk.choices.length > 1) throw new Error('unexpected chunk');
  };
  const cpu: Record<keyof typeof clients, number[]> = { undici: [], 'node:http': [] };
  try {
    for (const client of Object.values(clients)) for (let index = 0; index < CALLS; index++) await call(client);
    for (let round = 0; round < ROUNDS; round++) {
      const order: Array<keyof typeof clients> = round % 2 === 0 ? ['undici', 'node:http'] : ['node:http', 'undici'];
      for (const name of order) {
        const before = process.cpuUsage();
        for (let index = 0; index < CALLS; index++) await call(clients[name]);
        const used = process.cpuUsage(before);
        cpu[name].push((used.user + used.system) / CALLS);
      }
    }
  } finally {
    server.kill();
  }
  const undici = median(cpu.undici);
  const nodeHttp = median(cpu['node:http']);
  return {
    'SDK + undici fetch, CPU µs/call': Math.round(undici),
    'SDK + nodeHttpFetch, CPU µs/call': Math.round(nodeHttp),
    'ratio (nodeHttpFetch / undici)': Math.round((nodeHttp / undici) * 100) / 100,
  };
}

if (require.main === module) {
  benchProviderFetch().then(
    (results) => console.table(results),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
