import OpenAI from 'openai';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { bareOpenAILoop } from './bare-openai-loop';

/**
 * The baseline of the client-clock bench as a process of its own: the bare `openai` streaming loop with its tool
 * executed in-process (no loopback request). Each line `run` on stdin runs the loop once against the model at
 * argv[2] and answers one JSON line: its wall time and its process CPU (user + system), in ms.
 */
const pingTool: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'ping',
    description: 'Test tool ping',
    parameters: {
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
      additionalProperties: false,
    },
  },
};

const client = new OpenAI({ baseURL: process.argv[2], apiKey: 'bench', maxRetries: 0 });
const ping = (args: Record<string, unknown>) => Promise.resolve(JSON.stringify({ path: '/ping', id: args.id }));

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() !== 'run') return;
  const cpu = process.cpuUsage();
  const start = performance.now();
  bareOpenAILoop(client, 'test-model', [pingTool], ping).then(
    (answer) => {
      const wallMs = performance.now() - start;
      const used = process.cpuUsage(cpu);
      process.stdout.write(`${JSON.stringify({ answer, wallMs, cpuMs: (used.user + used.system) / 1000 })}\n`);
    },
    (error: unknown) => process.stdout.write(`${JSON.stringify({ error: String(error) })}\n`),
  );
});
