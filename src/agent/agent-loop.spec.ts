import type { ChatMessage } from '../shared/chat-types';
import { runAgentLoop } from './agent-loop';
import {
  call,
  deferred,
  expectEveryToolCallAnswered,
  oneCallEach,
  setup,
  startMessages,
  tool,
  toolMessages,
} from '../../test/support/agent-loop-harness';

describe(runAgentLoop.name, () => {
  describe('answering', () => {
    it('should return the text when the model answers without calling tools', async () => {
      const { provider, run } = setup([{ content: 'Sunny.' }]);
      const sut = await run();
      expect(sut).toEqual({
        output: 'Sunny.',
        reasoning: '',
        stopReason: 'answered',
        iterationsUsed: 0,
        toolCalls: [],
        usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15, modelCalls: 1 },
        messages: [...startMessages, { role: 'assistant', content: 'Sunny.' }],
        answerRetries: 0,
      });
      expect(provider.requests).toHaveLength(1);
    });

    it.each([
      ['length', 'max_tokens'],
      ['content_filter', 'refusal'],
      ['stop', 'answered'],
      [null, 'answered'],
    ])('should end with the stop reason the finish reason %s gives an answer', async (finishReason, stopReason) => {
      const { run } = setup([{ content: 'The answer was cut he', finishReason }]);
      const sut = await run();
      expect({ output: sut.output, stopReason: sut.stopReason }).toEqual({
        output: 'The answer was cut he',
        stopReason,
      });
    });

    it('should send the model settings and tools as given', async () => {
      const { provider, run, options } = setup([{ content: 'Sunny.' }], undefined, {
        temperature: 0.2,
        maxTokens: 100,
        parallelToolCalls: false,
        toolChoice: 'auto',
      });
      await run();
      expect(provider.requests[0]).toEqual({
        model: 'test-model',
        messages: startMessages,
        tools: options.tools.map((definition) => definition.schema),
        toolChoice: 'auto',
        parallelToolCalls: false,
        temperature: 0.2,
        maxTokens: 100,
      });
    });

    it("should pass reasoning_effort on, send the reasoning parts back and return every call's reasoning", async () => {
      const parts = [{ protocol: 'anthropic', text: 'Look it up.', data: { type: 'thinking', signature: 'sig' } }];
      const { provider, run } = setup(
        [
          { reasoning: 'Look it up.', reasoningParts: parts, toolCalls: [call('search', { q: 'x' })] },
          { reasoning: 'Now answer.', content: 'Done.' },
        ],
        undefined,
        { reasoningEffort: 'low' },
      );
      const sut = await run();
      expect(provider.requests[0].reasoningEffort).toBe('low');
      expect(provider.requests[1].messages[2]).toMatchObject({ role: 'assistant', reasoning_parts: parts });
      expect(sut.reasoning).toBe('Look it up.\n\nNow answer.');
    });

    it('should not mutate the messages it was given', async () => {
      const given = [...startMessages];
      const { run } = setup([{ toolCalls: [call('search', { q: 'x' })] }, { content: 'Done.' }], undefined, {
        messages: given,
      });
      await run();
      expect(given).toEqual(startMessages);
    });
  });

  describe('tool history', () => {
    it('should offer the tools on every iteration', async () => {
      const { provider, run } = setup([
        { toolCalls: [call('search', { q: 'a' })] },
        { toolCalls: [call('search', { q: 'b' })] },
        { content: 'Done.' },
      ]);
      await run();
      expect(provider.requests).toHaveLength(3);
      for (const request of provider.requests) {
        expect(request.tools?.map((offered) => offered.function.name)).toEqual(['search']);
      }
    });

    it('should keep the assistant text with its tool calls and answer each call id in call order', async () => {
      const first = call('search', { q: 'oslo' });
      const second = call('lookup', { q: 'norway' });
      const tools = [tool('search', 'read_only'), tool('lookup', 'mutating')];
      const { provider, run } = setup(
        [{ content: 'Let me check.', toolCalls: [first, second] }, { content: 'It is sunny.' }],
        tools,
      );
      const sut = await run();
      expect(provider.requests[1].messages).toEqual([
        ...startMessages,
        {
          role: 'assistant',
          content: 'Let me check.',
          tool_calls: [
            { id: first.id, type: 'function', function: { name: 'search', arguments: first.arguments } },
            { id: second.id, type: 'function', function: { name: 'lookup', arguments: second.arguments } },
          ],
        },
        { role: 'tool', tool_call_id: first.id, content: 'search ok' },
        { role: 'tool', tool_call_id: second.id, content: 'lookup ok' },
      ]);
      expect(sut.output).toBe('It is sunny.');
      expect(sut.iterationsUsed).toBe(1);
      expect(sut.messages.at(-1)).toEqual({ role: 'assistant', content: 'It is sunny.' });
    });

    it('should record every tool call in the result', async () => {
      const first = call('search', { q: 'oslo' });
      const { run } = setup([{ toolCalls: [first] }, { content: 'Done.' }]);
      const sut = await run();
      expect(sut.toolCalls).toEqual([
        {
          id: first.id,
          name: 'search',
          arguments: first.arguments,
          status: 'success',
          response: 'search ok',
          duration_ms: 1,
        },
      ]);
    });

    it('should pass the conversation so far and an abort signal to the tool', async () => {
      const first = call('search', { q: 'oslo' });
      const seen: { messages: readonly ChatMessage[]; signal: AbortSignal }[] = [];
      const { run } = setup([{ toolCalls: [first] }, { content: 'Done.' }], undefined, {
        executeTool: (toolCall, messages, signal) => {
          seen.push({ messages: [...messages], signal });
          return Promise.resolve({ call: toolCall, toolName: toolCall.name, status: 'success', response: 'ok' });
        },
      });
      await run();
      expect(seen[0].messages.at(-1)).toMatchObject({ role: 'assistant', tool_calls: [{ id: first.id }] });
      expect(seen[0].signal.aborted).toBe(false);
    });

    it('should not take the text of an earlier tool-calling turn as the output', async () => {
      const { run } = setup([
        { content: 'Thinking out loud.', toolCalls: [call('search', { q: 'x' })] },
        { content: '' },
      ]);
      const sut = await run();
      expect(sut.output).toBe('');
      expect(sut.stopReason).toBe('answered');
    });
  });

  describe('parallel tool calls', () => {
    it('should run consecutive read_only calls concurrently and answer in call order', async () => {
      const events: string[] = [];
      const secondStarted = deferred();
      const firstFinished = deferred();
      const tools = [
        tool('slow_read', 'read_only', async () => {
          events.push('start slow_read');
          await secondStarted.promise;
          events.push('end slow_read');
          firstFinished.resolve();
          return { response: 'slow result' };
        }),
        tool('fast_read', 'read_only', () => {
          events.push('start fast_read');
          secondStarted.resolve();
          events.push('end fast_read');
          return Promise.resolve({ response: 'fast result' });
        }),
      ];
      const calls = [call('slow_read', { q: '1' }), call('fast_read', { q: '2' })];
      const { provider, run } = setup([{ toolCalls: calls }, { content: 'Done.' }], tools);
      await run();
      expect(events).toEqual(['start slow_read', 'start fast_read', 'end fast_read', 'end slow_read']);
      expect(toolMessages(provider.requests[1])).toEqual([
        { role: 'tool', tool_call_id: calls[0].id, content: 'slow result' },
        { role: 'tool', tool_call_id: calls[1].id, content: 'fast result' },
      ]);
    });

    it('should run calls of other tools strictly one at a time in call order', async () => {
      const events: string[] = [];
      const recording = (name: string) => async () => {
        events.push(`start ${name}`);
        await new Promise((resolve) => setImmediate(resolve));
        events.push(`end ${name}`);
        return { response: name };
      };
      const tools = [
        tool('write', 'mutating', recording('write')),
        tool('read', 'read_only', recording('read')),
        tool('put', 'idempotent', recording('put')),
      ];
      const calls = [
        call('write', { q: '1' }),
        call('read', { q: '2' }),
        call('put', { q: '3' }),
        call('write', { q: '4' }),
      ];
      const { run } = setup([{ toolCalls: calls }, { content: 'Done.' }], tools);
      await run();
      expect(events).toEqual([
        'start write',
        'end write',
        'start read',
        'end read',
        'start put',
        'end put',
        'start write',
        'end write',
      ]);
    });
  });

  describe('tool failures', () => {
    it('should send unknown tools, invalid arguments and tool errors back to the model and carry on', async () => {
      const failing = tool('explode', 'mutating', () => Promise.reject(new Error('disk full')));
      const calls = [call('nope', { q: 'x' }), call('search', '{"q":'), call('explode', { q: 'x' })];
      const { provider, run } = setup(
        [{ toolCalls: calls }, { toolCalls: [call('search', { q: 'fixed' })] }, { content: 'Recovered.' }],
        [tool('search', 'read_only'), failing],
      );
      const sut = await run();
      expect(toolMessages(provider.requests[1]).map((message) => message.content)).toEqual([
        'Unknown tool nope',
        'Arguments are not valid JSON',
        'Tool failed: disk full',
      ]);
      expect(sut.toolCalls.map((record) => record.status)).toEqual([
        'not_found',
        'invalid_arguments',
        'error',
        'success',
      ]);
      expect(sut.output).toBe('Recovered.');
      expect(sut.stopReason).toBe('answered');
    });

    it('should turn an executeTool that throws into an error response', async () => {
      const first = call('search', { q: 'x' });
      const { provider, run } = setup([{ toolCalls: [first] }, { content: 'Ok.' }], undefined, {
        executeTool: () => Promise.reject(new Error('bug')),
      });
      const sut = await run();
      expect(toolMessages(provider.requests[1])).toEqual([
        { role: 'tool', tool_call_id: first.id, content: 'Tool search failed: bug', is_error: true },
      ]);
      expect(sut.stopReason).toBe('answered');
    });

    it('should disable a tool after too many invalid calls in a row and stop offering it', async () => {
      const tools = [tool('search', 'read_only'), tool('fetch', 'read_only')];
      const invalid = Array.from({ length: 4 }, () => call('search', { wrong: true }));
      const { provider, run } = setup([...oneCallEach(invalid), { content: 'Gave up on search.' }], tools, {
        maxConsecutiveInvalid: 3,
        maxIterations: 10,
      });
      const sut = await run();
      const offered = provider.requests.map((request) => request.tools?.map((offer) => offer.function.name));
      expect(offered).toEqual([['search', 'fetch'], ['search', 'fetch'], ['search', 'fetch'], ['fetch'], ['fetch']]);
      expect(toolMessages(provider.requests[3]).at(-1)?.content).toContain('is now disabled for this step');
      expect(toolMessages(provider.requests[4]).at(-1)).toEqual({
        role: 'tool',
        tool_call_id: invalid[3].id,
        content: expect.stringContaining('Not executed: search is disabled') as string,
        is_error: true,
      });
      expect(sut.toolCalls.map((record) => record.status)).toEqual([
        'invalid_arguments',
        'invalid_arguments',
        'invalid_arguments',
        'skipped',
      ]);
    });

    it('should keep malformed calls out of the assistant message and tell the model about them', async () => {
      const good = call('search', { q: 'x' });
      const { provider, run } = setup([
        {
          content: 'Calling.',
          toolCalls: [good],
          malformedToolCalls: [{ id: 'bad_1', arguments: '{"q":"y"}', reason: 'the call has no tool name' }],
        },
        { content: 'Done.' },
      ]);
      const sut = await run();
      const sent = provider.requests[1].messages;
      expect(sent.slice(startMessages.length)).toEqual([
        {
          role: 'assistant',
          content: 'Calling.',
          tool_calls: [{ id: good.id, type: 'function', function: { name: 'search', arguments: good.arguments } }],
        },
        { role: 'tool', tool_call_id: good.id, content: 'search ok' },
        {
          role: 'user',
          content: expect.stringContaining('(id bad_1) could not be executed: the call has no tool name') as string,
        },
      ]);
      expectEveryToolCallAnswered(sent);
      expect(sut.toolCalls.at(-1)).toMatchObject({ id: 'bad_1', name: '', status: 'malformed' });
      expect(sut.iterationsUsed).toBe(1);
    });

    it('should count a response with only malformed calls as an iteration and not as an answer', async () => {
      const { provider, run } = setup([
        { malformedToolCalls: [{ id: 'bad_1', arguments: '{}', reason: 'no name' }] },
        { content: 'Done.' },
      ]);
      const sut = await run();
      expect(provider.requests[1].messages.slice(startMessages.length)).toEqual([
        { role: 'user', content: expect.stringContaining('no name') as string },
      ]);
      expect(sut).toMatchObject({ output: 'Done.', stopReason: 'answered', iterationsUsed: 1 });
    });
  });

  describe('tool choice', () => {
    it('should force a required call only until a valid call was made', async () => {
      const { provider, run } = setup(
        [
          { toolCalls: [call('search', { bad: 1 })] },
          { toolCalls: [call('search', { q: 'ok' })] },
          { content: 'Done.' },
        ],
        undefined,
        { toolChoice: 'required' },
      );
      await run();
      expect(provider.requests.map((request) => request.toolChoice)).toEqual(['required', 'required', 'auto']);
    });
  });
});
