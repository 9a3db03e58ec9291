import Anthropic from '@anthropic-ai/sdk';
import { anthropic, AnthropicTestServer } from '../../test/support/anthropic-test-server';
import { AnthropicProvider } from './anthropic.provider';
import { ProviderError } from './provider';
import { providerSpecHarness, weatherTool } from '../../test/support/provider-spec-harness';

describe(AnthropicProvider.name, () => {
  const harness = providerSpecHarness({
    start: () => AnthropicTestServer.start(),
    create: (options) => new AnthropicProvider(options),
    name: 'claude',
    apiKey: 'sk-ant-test',
    model: 'claude-test',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Paris?' },
    ],
  });
  const { createSut, chat } = harness;

  it('should stream text and take message_delta usage in place of message_start usage', async () => {
    harness.server.script([
      anthropic.text('Sunny and mild.', {
        startUsage: { input_tokens: 25, output_tokens: 1 },
        deltaUsage: { output_tokens: 15 },
      }),
    ]);

    const response = await chat();

    expect(response).toMatchObject({
      content: 'Sunny and mild.',
      toolCalls: [],
      finishReason: 'stop',
      usage: { promptTokens: 25, completionTokens: 15, totalTokens: 40 },
    });
    expect(harness.events.filter((event) => event.type === 'text-delta').length).toBeGreaterThan(2);
  });

  it('should send system on top, tools with input_schema, max_tokens always, and the key as the SDK does', async () => {
    harness.server.script([anthropic.text('ok')]);

    await chat({ toolChoice: 'required', parallelToolCalls: false, temperature: 0.3 });

    const { headers, path, body } = harness.server.requests[0];
    expect(path).toBe('/v1/messages');
    expect(headers.authorization).toBe('Bearer sk-ant-test');
    expect(body).toEqual({
      model: 'claude-test',
      max_tokens: 4096,
      stream: true,
      system: 'Be brief.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] }],
      tools: [{ name: 'get_weather', description: 'Current weather', input_schema: weatherTool.function.parameters }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      temperature: 0.3,
    });
  });

  it('should assemble tool_use blocks from input_json_delta, an empty input as {}', async () => {
    harness.server.script([
      anthropic.turn([
        { text: 'Checking.' },
        { toolUse: { id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } } },
        { toolUse: { id: 'toolu_2', name: 'get_weather', input: '' } },
      ]),
    ]);

    const response = await chat();

    expect(response.toolCalls).toEqual([
      { id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'toolu_2', name: 'get_weather', arguments: '{}' },
    ]);
    expect(response).toMatchObject({ content: 'Checking.', finishReason: 'tool_calls' });
    expect(harness.events.filter((event) => event.type === 'tool-call-start')).toEqual([
      { type: 'tool-call-start', index: 0, id: 'toolu_1', name: 'get_weather' },
      { type: 'tool-call-start', index: 1, id: 'toolu_2', name: 'get_weather' },
    ]);
  });

  it('should stream thinking as reasoning and keep thinking and redacted blocks with their signature', async () => {
    harness.server.script([
      anthropic.turn([
        { thinking: 'The user wants weather.', signature: 'sig-abc' },
        { redactedThinking: 'opaque-bytes' },
        { toolUse: { id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } } },
      ]),
    ]);

    const response = await chat({ reasoningEffort: 'low', maxTokens: 500, temperature: 0.5 });

    expect(response.reasoning).toBe('The user wants weather.');
    expect(response.reasoningParts).toEqual([
      { protocol: 'anthropic', text: 'The user wants weather.', data: { type: 'thinking', signature: 'sig-abc' } },
      { protocol: 'anthropic', text: '', data: { type: 'redacted_thinking', data: 'opaque-bytes' } },
    ]);
    expect(harness.server.requests[0].body).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 1024 },
      max_tokens: 1524,
    });
    expect(harness.server.requests[0].body).not.toHaveProperty('temperature');
  });

  it('should map stop reasons: max_tokens to length, refusal to content_filter', async () => {
    harness.server.script([
      anthropic.text('Cut', { stopReason: 'max_tokens' }),
      anthropic.text('', { stopReason: 'refusal' }),
    ]);

    expect((await chat()).finishReason).toBe('length');
    expect((await chat()).finishReason).toBe('content_filter');
  });

  it('should retry 429 and 529 overloaded_error, honouring retry-after', async () => {
    harness.server.script([
      anthropic.error(429, 'rate_limit_error', 'Number of requests has exceeded your rate limit', {
        'retry-after': '2',
      }),
      anthropic.error(529, 'overloaded_error', 'Overloaded'),
      anthropic.text('ok'),
    ]);

    const response = await chat();

    expect(response.content).toBe('ok');
    expect(harness.server.requests).toHaveLength(3);
    expect(harness.sleeps[0]).toBe(2000);
    expect(harness.events.filter((event) => event.type === 'retry').map((event) => event.reason)).toEqual([
      'provider 429: Number of requests has exceeded your rate limit',
      'provider 529: Overloaded',
    ]);
  });

  it('should fail at once with the provider message on a 400', async () => {
    harness.server.script([
      anthropic.error(400, 'invalid_request_error', 'max_tokens: Field required'),
      anthropic.text('no'),
    ]);

    await expect(chat()).rejects.toMatchObject({
      message: 'provider 400: max_tokens: Field required',
      retryable: false,
    });
    expect(harness.server.requests).toHaveLength(1);
  });

  it('should turn an error event mid-stream into a provider error with its own message', async () => {
    harness.server.script([
      anthropic.turn([{ text: 'Partial' }, { text: 'never' }], {
        errorAfterBlocks: { blocks: 1, type: 'overloaded_error', message: 'Overloaded' },
      }),
    ]);

    const failure = chat({}, createSut({ retry: { maxRetries: 0 } }));

    await expect(failure).rejects.toBeInstanceOf(ProviderError);
    await expect(failure).rejects.toThrow('provider stream error: Overloaded');
  });

  it('should retry a stream cut off before message_stop', async () => {
    harness.server.script([anthropic.text('Sunny', { dropAfterFrames: 4 }), anthropic.text('Sunny.')]);

    expect((await chat()).content).toBe('Sunny.');
    expect(harness.server.requests).toHaveLength(2);
  });

  it('should send no credentials header when no key is configured', async () => {
    harness.server.script([anthropic.text('ok')]);

    await chat({}, createSut({ apiKey: undefined }));

    expect(harness.server.requests[0].headers['x-api-key']).toBeUndefined();
    expect(harness.server.requests[0].headers.authorization).toBeUndefined();
  });

  it('should stream what the official SDK assembles into the same message', async () => {
    harness.server.script([
      anthropic.turn([
        { thinking: 'Hmm.', signature: 'sig' },
        { text: 'Checking.' },
        { toolUse: { id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } } },
      ]),
    ]);
    const client = new Anthropic({ baseURL: harness.server.baseUrl, apiKey: 'k', maxRetries: 0 });

    const message = await client.messages
      .stream({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] })
      .finalMessage();

    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'Hmm.', signature: 'sig' },
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    expect(message).toMatchObject({ stop_reason: 'tool_use', usage: { input_tokens: 25, output_tokens: 15 } });
  });
});
