import { Ollama } from 'ollama';
import { ollama, OllamaTestServer } from '../../test/support/ollama-test-server';
import { OllamaProvider } from './ollama.provider';
import { ProviderError } from './provider';
import { providerSpecHarness, weatherTool } from '../../test/support/provider-spec-harness';

describe(OllamaProvider.name, () => {
  const harness = providerSpecHarness({
    start: () => OllamaTestServer.start(),
    create: (options) => new OllamaProvider(options),
    name: 'local',
    model: 'qwen3',
  });
  const { createSut, chat } = harness;

  it('should stream content and thinking and read usage from the done line', async () => {
    harness.server.script([ollama.text('Sunny.', { thinking: 'Easy one.', promptEvalCount: 40, evalCount: 9 })]);

    const response = await chat();

    expect(response).toMatchObject({
      content: 'Sunny.',
      reasoning: 'Easy one.',
      finishReason: 'stop',
      usage: { promptTokens: 40, completionTokens: 9, totalTokens: 49 },
    });
    expect(harness.events.filter((event) => event.type === 'reasoning-delta').map((event) => event.delta)).toEqual([
      'Easy ',
      'one.',
    ]);
  });

  it('should send tools, num_predict, temperature and think, and no tools when tool_choice is none', async () => {
    harness.server.script([ollama.text('ok'), ollama.text('ok')]);

    await chat({ temperature: 0.1, maxTokens: 200, reasoningEffort: 'medium' });
    await chat({ toolChoice: 'none' });

    expect(harness.server.requests[0].path).toBe('/api/chat');
    expect(harness.server.requests[0].body).toEqual({
      model: 'qwen3',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      stream: true,
      tools: [weatherTool],
      think: 'medium',
      options: { temperature: 0.1, num_predict: 200 },
    });
    expect(harness.server.requests[1].body).not.toHaveProperty('tools');
  });

  it('should give calls without ids stable ids that continue after the calls already in the conversation', async () => {
    harness.server.script([
      ollama.turn({
        calls: [
          { name: 'get_weather', arguments: { city: 'Paris' } },
          { name: 'get_weather', arguments: { city: 'Rome' }, id: 'call_from_server' },
        ],
      }),
    ]);
    const earlier = { id: 'call_0', type: 'function' as const, function: { name: 'get_weather', arguments: '{}' } };

    const response = await chat({
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: null, tool_calls: [earlier] },
        { role: 'tool', tool_call_id: 'call_0', content: 'rain' },
      ],
    });

    expect(response.toolCalls).toEqual([
      { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_from_server', name: 'get_weather', arguments: '{"city":"Rome"}' },
    ]);
    expect(response.finishReason).toBe('tool_calls');
  });

  it('should send results as tool messages naming their tool after the calls with object arguments and thinking', async () => {
    harness.server.script([ollama.text('ok')]);
    const call = {
      id: 'call_0',
      type: 'function' as const,
      function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
    };

    await chat({
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: null, tool_calls: [call], reasoning_content: 'Look it up.' },
        { role: 'tool', tool_call_id: 'call_0', content: 'rain', is_error: false },
      ],
    });

    expect(harness.server.requests[0].body.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'Hi' },
      {
        role: 'assistant',
        content: '',
        thinking: 'Look it up.',
        tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Paris' } } }],
      },
      { role: 'tool', content: 'rain', tool_name: 'get_weather' },
    ]);
  });

  it('should fail with the exact text of a model that does not support tools', async () => {
    harness.server.script([ollama.error(400, 'registry.ollama.ai/library/gemma:2b does not support tools')]);

    await expect(chat()).rejects.toMatchObject({
      message: 'provider 400: registry.ollama.ai/library/gemma:2b does not support tools',
      retryable: false,
    });
  });

  it('should retry a 429 and a connection cut before the done line', async () => {
    harness.server.script([
      ollama.error(429, 'server busy'),
      ollama.text('Sunny.', { dropAfterLines: 1 }),
      ollama.text('ok'),
    ]);

    expect((await chat()).content).toBe('ok');
    expect(harness.server.requests).toHaveLength(3);
    expect(harness.events.filter((event) => event.type === 'retry').map((event) => event.reason)).toEqual([
      'provider 429: server busy',
      expect.stringMatching(/^provider connection lost/),
    ]);
  });

  it('should fail with the text of an error line in the middle of the stream', async () => {
    harness.server.script([ollama.turn({ content: 'Partial', errorLine: 'model runner has unexpectedly stopped' })]);

    const failure = chat({}, createSut({ retry: { maxRetries: 0 } }));

    await expect(failure).rejects.toBeInstanceOf(ProviderError);
    await expect(failure).rejects.toThrow('provider stream error: model runner has unexpectedly stopped');
  });

  it('should send the key as a bearer token only when one is configured', async () => {
    harness.server.script([ollama.text('ok'), ollama.text('ok')]);

    await chat({}, createSut({ apiKey: 'ollama-key' }));
    await chat();

    expect(harness.server.requests[0].headers.authorization).toBe('Bearer ollama-key');
    expect(harness.server.requests[1].headers.authorization).toBeUndefined();
  });

  it('should stream lines the official SDK reads as they are', async () => {
    harness.server.script([
      ollama.turn({ thinking: 'Hm.', calls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }),
    ]);
    const client = new Ollama({ host: harness.server.baseUrl });

    const lines = [];
    for await (const line of await client.chat({ model: 'qwen3', messages: [], stream: true })) lines.push(line);

    expect(lines.map((line) => line.message.thinking ?? '').join('')).toBe('Hm.');
    expect(lines.flatMap((line) => line.message.tool_calls ?? [])).toEqual([
      { function: { name: 'get_weather', arguments: { city: 'Oslo' } } },
    ]);
    expect(lines.at(-1)).toMatchObject({ done: true, prompt_eval_count: 12, eval_count: 6 });
  });
});
