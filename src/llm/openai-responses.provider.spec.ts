import OpenAI from 'openai';
import { responses, ResponsesTestServer } from '../../test/support/responses-test-server';
import { OpenAIResponsesProvider } from './openai-responses.provider';
import { ProviderError } from './provider';
import { providerSpecHarness, weatherTool } from '../../test/support/provider-spec-harness';

describe(OpenAIResponsesProvider.name, () => {
  const harness = providerSpecHarness({
    start: () => ResponsesTestServer.start(),
    create: (options) => new OpenAIResponsesProvider(options),
    name: 'responses',
    apiKey: 'sk-test',
    model: 'gpt-5',
  });
  const { createSut, chat } = harness;

  it('should stream output text and read usage from response.completed', async () => {
    harness.server.script([
      responses.text('Sunny.', { usage: { input_tokens: 33, output_tokens: 7, total_tokens: 40 } }),
    ]);

    const response = await chat();

    expect(response).toMatchObject({
      content: 'Sunny.',
      finishReason: 'stop',
      usage: { promptTokens: 33, completionTokens: 7, totalTokens: 40 },
    });
    expect(harness.events.filter((event) => event.type === 'text-delta').map((event) => event.delta)).toEqual([
      'Sunn',
      'y.',
    ]);
  });

  it('should send input items, non-strict function tools, max_output_tokens, reasoning effort and store: false', async () => {
    harness.server.script([responses.text('ok')]);

    await chat({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      toolChoice: { name: 'get_weather' },
      parallelToolCalls: false,
      maxTokens: 300,
      reasoningEffort: 'high',
    });

    expect(harness.server.requests[0].path).toBe('/v1/responses');
    expect(harness.server.requests[0].headers.authorization).toBe('Bearer sk-test');
    expect(harness.server.requests[0].body).toEqual({
      model: 'gpt-5',
      input: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      stream: true,
      store: false,
      include: ['reasoning.encrypted_content'],
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'Current weather',
          parameters: weatherTool.function.parameters,
          strict: false,
        },
      ],
      tool_choice: { type: 'function', name: 'get_weather' },
      parallel_tool_calls: false,
      max_output_tokens: 300,
      reasoning: { effort: 'high' },
    });
  });

  it('should ask for no encrypted reasoning from a model that does not reason', async () => {
    harness.server.script([responses.text('ok')]);

    await chat({ model: 'gpt-4o' });

    expect(harness.server.requests[0].body).not.toHaveProperty('include');
  });

  it('should assemble function calls from argument deltas, an empty input as {}, and keep reasoning items', async () => {
    harness.server.script([
      responses.turn([
        { reasoning: 'Need the weather.', id: 'rs_1', encryptedContent: 'gAAAA-enc' },
        { call: { id: 'fc_1', callId: 'call_p', name: 'get_weather', arguments: { city: 'Paris' } } },
        { call: { id: 'fc_2', callId: 'call_e', name: 'get_weather', arguments: '' } },
      ]),
    ]);

    const response = await chat();

    expect(response.toolCalls).toEqual([
      { id: 'call_p', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_e', name: 'get_weather', arguments: '{}' },
    ]);
    expect(response).toMatchObject({ finishReason: 'tool_calls', reasoning: 'Need the weather.' });
    expect(response.reasoningParts).toEqual([
      { protocol: 'openai-responses', text: 'Need the weather.', data: { id: 'rs_1', encrypted_content: 'gAAAA-enc' } },
    ]);
  });

  it('should send reasoning items, calls and function_call_output items back in order', async () => {
    harness.server.script([responses.text('ok')]);
    const call = {
      id: 'call_p',
      type: 'function' as const,
      function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
    };

    await chat({
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [call],
          reasoning_parts: [
            { protocol: 'openai-responses', text: 'Need it.', data: { id: 'rs_1', encrypted_content: 'enc' } },
            { protocol: 'anthropic', text: 'x', data: { type: 'thinking', signature: 's' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_p', content: 'rain', is_error: true },
      ],
    });

    expect(harness.server.requests[0].body.input).toEqual([
      { role: 'user', content: 'Hi' },
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [{ type: 'summary_text', text: 'Need it.' }],
        encrypted_content: 'enc',
      },
      { role: 'assistant', content: 'Checking.' },
      { type: 'function_call', call_id: 'call_p', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_p', output: 'rain' },
    ]);
  });

  it('should map response.incomplete for max_output_tokens to length', async () => {
    harness.server.script([responses.text('Cut', { incomplete: 'max_output_tokens' })]);

    expect((await chat()).finishReason).toBe('length');
  });

  it.each(['response.failed', 'error'] as const)('should fail with the message of a %s event', async (event) => {
    harness.server.script([
      responses.turn([{ text: 'Partial' }], {
        failAfterItems: { items: 1, event, message: 'The server had an error' },
      }),
    ]);

    const failure = chat({}, createSut({ retry: { maxRetries: 0 } }));

    await expect(failure).rejects.toBeInstanceOf(ProviderError);
    await expect(failure).rejects.toThrow('provider stream error: The server had an error');
  });

  it('should retry a 429 and a stream cut off before response.completed', async () => {
    harness.server.script([
      responses.error(429, 'Rate limit reached', { 'retry-after-ms': '0' }),
      responses.text('Sunny', { dropAfterFrames: 5 }),
      responses.text('ok'),
    ]);

    expect((await chat()).content).toBe('ok');
    expect(harness.server.requests).toHaveLength(3);
    expect(harness.events.filter((event) => event.type === 'retry')[0]).toMatchObject({
      reason: 'provider 429: Rate limit reached',
      delayMs: 0,
    });
  });

  it('should stream what the official SDK assembles into the same response', async () => {
    harness.server.script([
      responses.turn([
        { reasoning: 'Hm.', id: 'rs_9', encryptedContent: 'enc' },
        { text: 'Checking.' },
        { call: { id: 'fc_9', callId: 'call_9', name: 'get_weather', arguments: { city: 'Oslo' } } },
      ]),
    ]);
    const client = new OpenAI({ baseURL: harness.server.baseUrl, apiKey: 'k', maxRetries: 0 });

    const final = await client.responses.stream({ model: 'gpt-5', input: 'Hi' }).finalResponse();

    expect(final.output_text).toBe('Checking.');
    expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'message', 'function_call']);
    expect(final.output[2]).toMatchObject({ call_id: 'call_9', arguments: '{"city":"Oslo"}' });
    expect(final.usage).toMatchObject({ input_tokens: 20, output_tokens: 8 });
  });
});
