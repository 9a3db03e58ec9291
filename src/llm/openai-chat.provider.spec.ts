import { delta, reply, type ToolCallsOptions } from '../../test/support/openai-test-server';
import { openAIChatHarness } from '../../test/support/openai-chat-harness';
import { weatherTool } from '../../test/support/provider-spec-harness';
import { OpenAIChatProvider } from './openai-chat.provider';
import { ProviderError } from './provider';

describe(OpenAIChatProvider.name, () => {
  const harness = openAIChatHarness();
  const { createSut, chat, eventsOf } = harness;

  describe('streaming', () => {
    it('should emit text deltas as they arrive and read usage from the final choices-less chunk', async () => {
      const usage = { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 };
      harness.server.script([reply.text('Sunny and mild.', { usage })]);

      const response = await chat();

      expect(eventsOf('text-delta').length).toBeGreaterThan(2);
      expect(
        eventsOf('text-delta')
          .map((event) => event.delta)
          .join(''),
      ).toBe('Sunny and mild.');
      expect(response).toEqual({
        content: 'Sunny and mild.',
        reasoning: '',
        reasoningParts: [],
        toolCalls: [],
        malformedToolCalls: [],
        repairs: [],
        finishReason: 'stop',
        usage: { promptTokens: 12, completionTokens: 4, totalTokens: 16 },
      });
    });

    it('should keep reasoning deltas apart from the content', async () => {
      harness.server.script([reply.text('42', { reasoning: 'Let me think hard.' })]);

      const response = await chat();

      expect(response.reasoning).toBe('Let me think hard.');
      expect(response.content).toBe('42');
      expect(
        eventsOf('reasoning-delta')
          .map((event) => event.delta)
          .join(''),
      ).toBe('Let me think hard.');
      expect(eventsOf('text-delta').map((event) => event.delta)).toEqual(['42']);
    });

    it('should read reasoning sent under the name reasoning as well', async () => {
      harness.server.script([reply.chunks([delta({ reasoning: 'hm' }), delta({ content: 'ok' }, 'stop')])]);

      expect(await chat()).toMatchObject({ reasoning: 'hm', content: 'ok' });
    });

    it('should report zero usage when the provider sends none', async () => {
      harness.server.script([reply.text('hi', { usage: null })]);

      expect((await chat()).usage).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
    });
  });

  describe('request', () => {
    it('should send a streaming request with tools, tool_choice, parallel_tool_calls, temperature and max_tokens', async () => {
      harness.server.script([reply.text('ok')]);

      await chat({ toolChoice: { name: 'get_weather' }, parallelToolCalls: false, temperature: 0.2, maxTokens: 300 });

      expect(harness.server.requests).toHaveLength(1);
      expect(harness.server.requests[0].headers.authorization).toBe('Bearer sk-test');
      expect(harness.server.requests[0].body).toEqual({
        model: 'test-model',
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        stream: true,
        stream_options: { include_usage: true },
        tools: [weatherTool],
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
        parallel_tool_calls: false,
        temperature: 0.2,
        max_tokens: 300,
      });
    });

    it('should pass a string tool_choice as is and send no tool fields without tools', async () => {
      harness.server.script([reply.text('ok'), reply.text('ok')]);

      await chat({ toolChoice: 'required' });
      await chat({ tools: [], toolChoice: 'auto', parallelToolCalls: true });

      expect(harness.server.requests[0].body.tool_choice).toBe('required');
      expect(Object.keys(harness.server.requests[1].body).sort()).toEqual([
        'messages',
        'model',
        'stream',
        'stream_options',
      ]);
    });

    it('should send max_completion_tokens instead of max_tokens to reasoning models, and reasoning_effort', async () => {
      harness.server.script([reply.text('ok'), reply.text('ok')]);

      await chat({ model: 'o4-mini', maxTokens: 300, reasoningEffort: 'high' });
      await chat({ model: 'gpt-4o', maxTokens: 300 });

      expect(harness.server.requests[0].body).toMatchObject({ max_completion_tokens: 300, reasoning_effort: 'high' });
      expect(harness.server.requests[0].body).not.toHaveProperty('max_tokens');
      expect(harness.server.requests[1].body).toMatchObject({ max_tokens: 300 });
      expect(harness.server.requests[1].body).not.toHaveProperty('max_completion_tokens');
      expect(harness.server.requests[1].body).not.toHaveProperty('reasoning_effort');
    });

    it('should send neither reasoning parts nor error flags, which are not Chat Completions fields', async () => {
      harness.server.script([reply.text('ok')]);
      const parts = [{ protocol: 'anthropic', text: 'hm', data: { signature: 's' } }];
      const call = { id: 'a', type: 'function' as const, function: { name: 'get_weather', arguments: '{}' } };

      await chat({
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: null, tool_calls: [call], reasoning_content: 'hm', reasoning_parts: parts },
          { role: 'tool', tool_call_id: 'a', content: 'failed', is_error: true },
        ],
      });

      expect(harness.server.requests[0].body.messages).toEqual([
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: null, tool_calls: [call], reasoning_content: 'hm' },
        { role: 'tool', tool_call_id: 'a', content: 'failed' },
      ]);
    });

    it('should send no Authorization header when no API key is configured', async () => {
      harness.server.script([reply.text('ok')]);

      await chat({}, createSut({ apiKey: undefined }));

      expect(harness.server.requests[0].headers.authorization).toBeUndefined();
    });
  });

  describe('tool-call variations', () => {
    const args = '{"city":"北京 😀"}';
    const variations: Array<[string, ToolCallsOptions]> = [
      ['arguments split into many small chunks', {}],
      ['the whole call in one chunk', { whole: true }],
      ['continuation chunks with empty id and name', { emptyContinuation: true }],
      ['no index at all', { omitIndex: true }],
      ['an index starting at 1', { indexBase: 1 }],
      ['no type', { omitType: true }],
      ['a surrogate pair split between fragments', { argsChunkSize: 1 }],
      ['the SSE body cut inside multi-byte characters', { bytesPerWrite: 1 }],
      ['finish_reason stop although a call is present', { finishReason: 'stop' }],
      ['no finish_reason at all', { finishReason: null }],
      ['finish_reason in the same chunk as the last fragment', { finishWithLastFragment: true }],
      ['empty-string content', { content: '' }],
      ['reasoning deltas before the call', { reasoning: 'I should look it up.' }],
    ];

    it.each(variations)('should assemble the call from %s', async (_title, options) => {
      harness.server.script([reply.toolCalls([{ name: 'get_weather', id: 'call_abc', arguments: args }], options)]);

      const response = await chat();

      expect(response.toolCalls).toEqual([{ id: 'call_abc', name: 'get_weather', arguments: args }]);
      expect(response.malformedToolCalls).toEqual([]);
      expect(response.content).toBe('');
      expect(eventsOf('tool-call-start')).toEqual([
        { type: 'tool-call-start', index: 0, id: 'call_abc', name: 'get_weather' },
      ]);
      expect(
        eventsOf('tool-args-delta')
          .map((event) => event.delta)
          .join(''),
      ).toBe(args);
    });

    it('should assemble interleaved parallel calls and a name that arrives late', async () => {
      harness.server.script([
        reply.toolCalls([
          { name: 'get_weather', id: 'a', arguments: { city: 'Paris' } },
          { name: 'get_weather', id: 'b', arguments: { city: 'Rome' }, nameLate: true },
        ]),
      ]);

      const response = await chat();

      expect(response.toolCalls).toEqual([
        { id: 'a', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { id: 'b', name: 'get_weather', arguments: '{"city":"Rome"}' },
      ]);
      expect(response.finishReason).toBe('tool_calls');
    });

    it('should generate call_<n> ids after the calls already in the conversation', async () => {
      harness.server.script([reply.toolCalls([{ name: 'get_weather', id: null, arguments: { city: 'x' } }])]);

      const response = await chat({
        messages: [
          { role: 'user', content: 'q' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'p', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'p', content: 'rainy' },
        ],
      });

      expect(response.toolCalls.map((call) => call.id)).toEqual(['call_1']);
    });

    it('should report a call that never receives a name as malformed and invent nothing', async () => {
      harness.server.script([reply.toolCalls([{ name: null, id: 'x', arguments: '{"city":"Paris"}' }])]);

      const response = await chat();

      expect(response.toolCalls).toEqual([]);
      expect(response.malformedToolCalls).toEqual([
        { id: 'x', arguments: '{"city":"Paris"}', reason: 'the provider sent a tool call without a function name' },
      ]);
      expect(eventsOf('tool-call-start')).toEqual([]);
    });

    it('should repair a call written as <tool_call> markup in the text', async () => {
      harness.server.script([reply.text('<tool_call>{"name":"get_weather","arguments":{"city":"Oslo"}}</tool_call>')]);

      const response = await chat();

      expect(response.content).toBe('');
      expect(response.toolCalls).toEqual([
        { id: 'call_0', name: 'get_weather', arguments: '{"city":"Oslo"}', repair: { kind: 'tool_call_tag' } },
      ]);
      expect(response.repairs).toHaveLength(1);
    });

    it('should repair a name that carries its arguments', async () => {
      harness.server.script([reply.toolCalls([{ name: 'get_weather" city="北京', id: 'c', arguments: '' }])]);

      const response = await chat();

      expect(response.toolCalls).toEqual([
        { id: 'c', name: 'get_weather', arguments: '{"city":"北京"}', repair: { kind: 'tool_name' } },
      ]);
      expect(response.repairs).toHaveLength(1);
    });
  });

  describe('answers that are not an event stream', () => {
    it('should read a plain chat.completion JSON answer to a streaming request as the whole answer', async () => {
      const usage = { prompt_tokens: 21, completion_tokens: 7, total_tokens: 28 };
      harness.server.script([
        reply.ignoringStream(
          reply.toolCalls(
            [
              { name: 'get_weather', id: 'call_p', arguments: { city: 'Paris' } },
              { name: 'get_weather', id: 'call_r', arguments: { city: 'Rome' } },
            ],
            { content: 'Checking both.', usage },
          ),
        ),
      ]);

      const response = await chat();

      expect(response).toEqual({
        content: 'Checking both.',
        reasoning: '',
        reasoningParts: [],
        toolCalls: [
          { id: 'call_p', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'call_r', name: 'get_weather', arguments: '{"city":"Rome"}' },
        ],
        malformedToolCalls: [],
        repairs: [],
        finishReason: 'tool_calls',
        usage: { promptTokens: 21, completionTokens: 7, totalTokens: 28 },
      });
      expect(eventsOf('text-delta')).toEqual([{ type: 'text-delta', delta: 'Checking both.' }]);
      expect(eventsOf('tool-call-start').map((event) => event.id)).toEqual(['call_p', 'call_r']);
    });

    it('should read text, reasoning and finish_reason of a plain JSON answer', async () => {
      harness.server.script([
        reply.ignoringStream(reply.text('Sunny.', { reasoning: 'Look outside.', finishReason: 'length' })),
      ]);

      expect(await chat()).toMatchObject({ content: 'Sunny.', reasoning: 'Look outside.', finishReason: 'length' });
    });

    it('should keep apart the calls of a JSON message that carry neither index nor id', async () => {
      const call = (city: string) => ({
        type: 'function',
        function: { name: 'get_weather', arguments: `{"city":"${city}"}` },
      });
      const completion = {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'test-model',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: null, tool_calls: [call('Paris'), call('Rome')] },
            finish_reason: 'tool_calls',
          },
        ],
      };
      harness.server.script([reply.body(JSON.stringify(completion), { contentType: 'application/json' })]);

      const response = await chat();

      expect(response.toolCalls).toEqual([
        { id: 'call_0', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { id: 'call_1', name: 'get_weather', arguments: '{"city":"Rome"}' },
      ]);
      expect(response.usage).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
    });

    it('should read an SSE body sent with a wrong content type', async () => {
      harness.server.script([reply.text('ok', { headers: { 'content-type': 'text/plain' } })]);

      expect((await chat()).content).toBe('ok');
    });

    it.each([
      ['an HTML page', 'text/html; charset=utf-8', '<!DOCTYPE html><html><body>Welcome to nginx!</body></html>'],
      ['plain text', 'text/plain', 'Service temporarily unavailable'],
      ['JSON that is not a chat completion', 'application/json', '{"status":"ok","models":[]}'],
      ['an empty body', 'text/event-stream', ''],
    ])('should fail at once naming the content type and the first bytes of %s', async (_title, contentType, body) => {
      harness.server.script([reply.body(body, { contentType }), reply.text('never')]);

      const failure = chat();

      await expect(failure).rejects.toBeInstanceOf(ProviderError);
      await expect(failure).rejects.toMatchObject({ retryable: false });
      await expect(failure).rejects.toThrow(contentType);
      if (body !== '') await expect(failure).rejects.toThrow(body.slice(0, 20));
      expect(harness.server.requests).toHaveLength(1);
    });

    it('should retry a stream that ends cleanly without finish_reason and without [DONE]', async () => {
      harness.server.script([
        reply.text('half an ans', { finishReason: null, done: false }),
        reply.text('whole answer'),
      ]);

      const response = await chat();

      expect(response.content).toBe('whole answer');
      expect(harness.server.requests).toHaveLength(2);
      expect(eventsOf('retry')[0].reason).toMatch(/ended without finish_reason or \[DONE\]/);
    });

    it('should accept a stream that ends after a finish_reason without [DONE]', async () => {
      harness.server.script([reply.text('complete', { done: false })]);

      expect(await chat()).toMatchObject({ content: 'complete', finishReason: 'stop' });
      expect(harness.server.requests).toHaveLength(1);
    });

    it('should pass on an error object sent as a 200 JSON body as a retryable provider error', async () => {
      harness.server.script([
        reply.body('{"error":{"message":"model overloaded","type":"server_error"}}', {
          contentType: 'application/json',
        }),
        reply.text('ok'),
      ]);

      expect((await chat()).content).toBe('ok');
      expect(eventsOf('retry')[0].reason).toMatch(/model overloaded/);
    });
  });

  it('should not show the API key when serialised', () => {
    expect(JSON.stringify(createSut({ apiKey: 'sk-secret' }))).not.toContain('sk-secret');
  });
});
