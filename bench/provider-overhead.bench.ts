import Anthropic from '@anthropic-ai/sdk';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { performance } from 'node:perf_hooks';
import type { ProviderProtocol } from '../src/config/provider-config';
import { toAnthropicBody } from '../src/llm/anthropic-messages';
import { toOllamaBody } from '../src/llm/ollama-chat';
import { toChatCompletionBody } from '../src/llm/openai-chat.provider';
import { toResponsesBody } from '../src/llm/openai-responses';
import type { ChatProvider, ChatRequest } from '../src/llm/provider';
import { PROVIDER_ADAPTERS } from '../src/llm/provider-protocols';
import { PROTOCOL_KITS, type KitServer, type ProtocolKit } from '../test/support/protocol-kits';
import { median } from './median';

const CALLS = 40;
const REPETITIONS = 11;

const request: ChatRequest = {
  model: 'bench-model',
  messages: [
    { role: 'system', content: 'You answer weather questions.' },
    { role: 'user', content: 'Weather in Paris and Rome?' },
  ],
  tools: [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Current weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    },
  ],
};

/** Thinking, then two calls: every part of the stream each adapter reads. */
const turn = (kit: ProtocolKit) =>
  kit.toolCalls(
    [
      { id: 'call_0', name: 'get_weather', input: { city: 'Paris' } },
      { id: 'call_1', name: 'get_weather', input: { city: 'Rome' } },
    ],
    'The user wants two cities; call the tool twice.',
  );

/** What one writes by hand with each official SDK: send the body, read every event, keep text and arguments. */
const BARE_CALLS: Record<ProviderProtocol, (baseUrl: string) => () => Promise<number>> = {
  'openai-chat': (baseUrl) => {
    const client = new OpenAI({ baseURL: baseUrl, apiKey: 'bench', maxRetries: 0 });
    const body = toChatCompletionBody(request);
    return async () => {
      let size = 0;
      for await (const chunk of await client.chat.completions.create(body)) {
        const delta = chunk.choices[0]?.delta;
        size += (delta?.content ?? '').length;
        for (const part of delta?.tool_calls ?? []) size += (part.function?.arguments ?? '').length;
      }
      return size;
    };
  },
  anthropic: (baseUrl) => {
    const client = new Anthropic({ baseURL: baseUrl, apiKey: 'bench', maxRetries: 0 });
    const body = toAnthropicBody(request);
    return async () => {
      let size = 0;
      for await (const event of await client.messages.create(body)) {
        if (event.type !== 'content_block_delta') continue;
        const delta = event.delta;
        if (delta.type === 'text_delta') size += delta.text.length;
        if (delta.type === 'thinking_delta') size += delta.thinking.length;
        if (delta.type === 'input_json_delta') size += delta.partial_json.length;
      }
      return size;
    };
  },
  'openai-responses': (baseUrl) => {
    const client = new OpenAI({ baseURL: baseUrl, apiKey: 'bench', maxRetries: 0 });
    const body = toResponsesBody(request);
    return async () => {
      let size = 0;
      for await (const event of await client.responses.create(body)) {
        if (
          event.type === 'response.output_text.delta' ||
          event.type === 'response.reasoning_summary_text.delta' ||
          event.type === 'response.function_call_arguments.delta'
        ) {
          size += event.delta.length;
        }
      }
      return size;
    };
  },
  ollama: (baseUrl) => {
    const client = new Ollama({ host: baseUrl });
    const body = toOllamaBody(request);
    return async () => {
      let size = 0;
      for await (const line of await client.chat(body)) {
        size += line.message.content.length + (line.message.thinking ?? '').length;
        for (const call of line.message.tool_calls ?? []) size += JSON.stringify(call.function.arguments).length;
      }
      return size;
    };
  },
};

async function timed(server: KitServer, kit: ProtocolKit, call: () => Promise<unknown>): Promise<number> {
  server.reset();
  server.script(Array.from({ length: CALLS }, () => turn(kit)));
  const start = performance.now();
  for (let index = 0; index < CALLS; index++) await call();
  return (performance.now() - start) / CALLS;
}

async function benchProtocol(kit: ProtocolKit): Promise<Record<string, number>> {
  const server = await kit.start();
  try {
    const protocol = kit.protocol as ProviderProtocol;
    const adapter: ChatProvider = PROVIDER_ADAPTERS[protocol]({
      name: 'bench',
      baseUrl: server.baseUrl,
      apiKey: 'bench',
    });
    const viaAdapter = async () => {
      const response = await adapter.chat(request);
      if (response.toolCalls.length !== 2) throw new Error(`${protocol}: expected two calls`);
    };
    const bare = BARE_CALLS[protocol](server.baseUrl);
    await timed(server, kit, viaAdapter);
    await timed(server, kit, bare);
    const adapterTimes: number[] = [];
    const bareTimes: number[] = [];
    for (let repetition = 0; repetition < REPETITIONS; repetition++) {
      // Alternating keeps slow drift (GC, JIT, sockets) from favouring either side.
      if (repetition % 2 === 0) {
        adapterTimes.push(await timed(server, kit, viaAdapter));
        bareTimes.push(await timed(server, kit, bare));
      } else {
        bareTimes.push(await timed(server, kit, bare));
        adapterTimes.push(await timed(server, kit, viaAdapter));
      }
    }
    const round = (value: number) => Math.round(value * 1000) / 1000;
    const adapterMs = median(adapterTimes);
    const bareMs = median(bareTimes);
    return {
      adapter_ms_per_call: round(adapterMs),
      bare_sdk_ms_per_call: round(bareMs),
      overhead_ms_per_call: round(adapterMs - bareMs),
      ratio: round(adapterMs / bareMs),
    };
  } finally {
    await server.close();
  }
}

/**
 * Per-call overhead of each protocol adapter (request mapping, stream reading, retries and deadlines,
 * repair) against the bare official SDK sending the same body to the same local test server.
 */
export async function benchProviderOverhead(): Promise<Record<string, Record<string, number>>> {
  const results: Record<string, Record<string, number>> = {};
  for (const kit of PROTOCOL_KITS) results[kit.protocol] = await benchProtocol(kit);
  return results;
}

if (require.main === module) {
  void benchProviderOverhead().then((results) => {
    console.log(`provider adapter overhead (median of ${REPETITIONS} × ${CALLS} streamed calls)`);
    console.table(results);
  });
}
