import OpenAI from 'openai';
import { performance } from 'node:perf_hooks';
import { OpenAIChatProvider } from '../src/llm/openai-chat.provider';
import { ArgumentValidator } from '../src/executors/arguments';
import { runTool } from '../src/executors/run-tool';
import type { ToolDefinition } from '../src/shared/tool-definition';
import { runAgentLoop } from '../src/agent/agent-loop';
import { OpenAITestServer, reply, type Turn } from '../test/support/openai-test-server';
import { bareOpenAILoop } from './bare-openai-loop';
import { median } from './median';

const TOOL_ITERATIONS = 8;
const CALLS_PER_ITERATION = 3;
const MODEL_CALLS = TOOL_ITERATIONS + 1;
const REPETITIONS = 25;
const MODEL = 'bench-model';

const noop = (_params?: unknown) => Promise.resolve({ response: 'ok' });

const noopTool: ToolDefinition = {
  schema: {
    type: 'function',
    function: {
      name: 'noop',
      description: 'Does nothing',
      parameters: {
        type: 'object',
        properties: { iteration: { type: 'integer' }, call: { type: 'integer' } },
        required: ['iteration', 'call'],
        additionalProperties: false,
      },
    },
  },
  effect: 'read_only',
  execute: noop,
};

/** 8 model turns of 3 parallel calls (distinct arguments, so no repetition guard fires), then the answer. */
const conversation = (): Turn[] => [
  ...Array.from({ length: TOOL_ITERATIONS }, (_, iteration) =>
    reply.toolCalls(
      Array.from({ length: CALLS_PER_ITERATION }, (__, call) => ({
        name: 'noop',
        id: `call_${iteration}_${call}`,
        arguments: { iteration, call },
      })),
    ),
  ),
  reply.text('All done.'),
];

async function engineLoop(server: OpenAITestServer, validator: ArgumentValidator): Promise<string> {
  const provider = new OpenAIChatProvider({ name: 'bench', baseUrl: server.baseUrl, apiKey: 'bench' });
  const tools = [noopTool];
  const result = await runAgentLoop({
    provider,
    model: MODEL,
    messages: [{ role: 'user', content: 'Go.' }],
    tools,
    maxIterations: MODEL_CALLS,
    executeTool: (call, messages, signal) =>
      runTool({
        call,
        tools,
        messages,
        validator,
        defaultTimeoutMs: 30_000,
        context: { runId: null, userId: 'bench', isAdmin: false, signal, depth: 0 },
      }),
  });
  return result.output;
}

/** What one would write by hand with the SDK: stream, assemble calls by index, run them, repeat. */
async function timed(server: OpenAITestServer, run: () => Promise<string>): Promise<number> {
  server.reset();
  server.script(conversation());
  const start = performance.now();
  const output = await run();
  const elapsed = performance.now() - start;
  if (output !== 'All done.') throw new Error(`unexpected final answer: ${output}`);
  return elapsed / MODEL_CALLS;
}

/**
 * Engine overhead: ms per iteration (one streamed model call and its tool calls) of runAgentLoop with the
 * real provider and runTool, against a bare SDK loop, over the same scripted local conversation.
 */
export async function benchEngineOverhead(): Promise<Record<string, number>> {
  const server = await OpenAITestServer.start();
  try {
    const validator = new ArgumentValidator();
    const client = new OpenAI({ baseURL: server.baseUrl, apiKey: 'bench', maxRetries: 0 });
    const engine = () => engineLoop(server, validator);
    const bare = () =>
      bareOpenAILoop(
        client,
        MODEL,
        [{ type: 'function', function: { ...noopTool.schema.function } }],
        async (args) => (await noop(args)).response,
      );
    await timed(server, engine);
    await timed(server, bare);
    const engineTimes: number[] = [];
    const bareTimes: number[] = [];
    for (let repetition = 0; repetition < REPETITIONS; repetition++) {
      // Alternating keeps slow drift (GC, JIT, sockets) from favouring either side.
      const [first, second] = repetition % 2 === 0 ? [engine, bare] : [bare, engine];
      const a = await timed(server, first);
      const b = await timed(server, second);
      engineTimes.push(repetition % 2 === 0 ? a : b);
      bareTimes.push(repetition % 2 === 0 ? b : a);
    }
    const engineMs = median(engineTimes);
    const bareMs = median(bareTimes);
    const round = (value: number) => Math.round(value * 1000) / 1000;
    return {
      engine_ms_per_iteration: round(engineMs),
      bare_sdk_ms_per_iteration: round(bareMs),
      overhead_ms_per_iteration: round(engineMs - bareMs),
      ratio: round(engineMs / bareMs),
    };
  } finally {
    await server.close();
  }
}

if (require.main === module) {
  void benchEngineOverhead().then((results) => {
    console.log(
      `engine overhead (${TOOL_ITERATIONS} iterations × ${CALLS_PER_ITERATION} parallel no-op calls + answer, ` +
        `median of ${REPETITIONS})`,
    );
    for (const [name, value] of Object.entries(results)) console.log(`  ${name}: ${value}`);
  });
}
