import { getEventListeners } from 'node:events';
import { abortListenerLimitsExceededBy, abortListenersLeftBy } from '../../test/support/abort-listeners';
import { OpenAITestServer, reply } from '../../test/support/openai-test-server';
import { OpenAIChatProvider } from '../llm/openai-chat.provider';
import { ArgumentValidator } from '../executors/arguments';
import { runTool } from '../executors/run-tool';
import type { ToolDefinition } from '../shared/tool-definition';
import { runAgentLoop } from '../agent/agent-loop';

const echo: ToolDefinition = {
  schema: {
    type: 'function',
    function: {
      name: 'echo',
      description: 'Echoes its text',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
  },
  effect: 'read_only',
  execute: ({ params }) => Promise.resolve({ response: String(params.text) }),
};

describe(`${runAgentLoop.name} abort listeners`, () => {
  let server: OpenAITestServer;

  beforeAll(async () => {
    server = await OpenAITestServer.start();
  });

  afterAll(async () => {
    await server.close();
  });

  const testProvider = () => new OpenAIChatProvider({ name: 'test', baseUrl: server.baseUrl, apiKey: 'sk-test' });
  const validator = new ArgumentValidator();

  /** A loop of `provider` that runs its echo calls through runTool, as the LLM node does. */
  const echoLoop = (provider: OpenAIChatProvider, prompt: string, signal: AbortSignal) =>
    runAgentLoop({
      provider,
      model: 'test-model',
      messages: [{ role: 'user', content: prompt }],
      tools: [echo],
      signal,
      timeoutMs: 60_000,
      executeTool: (call, messages, callSignal) =>
        runTool({
          call,
          tools: [echo],
          messages,
          validator,
          defaultTimeoutMs: 30_000,
          context: { runId: null, userId: 'u', isAdmin: false, signal: callSignal, depth: 0 },
        }),
    });

  it('should leave no abort listener on the run signal or any live signal after loops with tool calls', async () => {
    const provider = testProvider();
    const run = new AbortController();
    const loop = () => echoLoop(provider, 'Echo twice.', run.signal);
    const turns = () => [
      reply.toolCalls([
        { name: 'echo', id: 'call_a', arguments: { text: 'a' } },
        { name: 'echo', id: 'call_b', arguments: { text: 'b' } },
      ]),
      reply.text('Done.'),
    ];
    server.script([...turns(), ...turns(), ...turns()]);

    const left = await abortListenersLeftBy(async () => {
      for (let index = 0; index < 3; index++) expect((await loop()).output).toBe('Done.');
    });

    expect(server.requests).toHaveLength(6);
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
    expect(left).toBe(0);
  });

  it('should stay within the listener limit of every signal when many read-only calls run at once', async () => {
    const calls = Array.from({ length: 25 }, (_, index) => ({
      name: 'echo',
      id: `call_${index}`,
      arguments: { text: String(index) },
    }));
    server.script([reply.toolCalls(calls), reply.text('Done.')]);

    const exceeded = await abortListenerLimitsExceededBy(async () => {
      const result = await echoLoop(testProvider(), 'Echo 25 times.', new AbortController().signal);
      expect(result.output).toBe('Done.');
    });

    expect(exceeded).toBe(0);
  });
});
