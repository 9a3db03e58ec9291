import { chatResponse } from '../../test/factories/chat-response.factory';
import { scriptedProvider, type ScriptStep } from '../../test/factories/scripted-provider.factory';
import type { ChatMessage } from '../shared/chat-types';
import { ProviderError, type ChatCallOptions, type ChatRequest, type ChatResponse } from '../llm/provider';
import type { ToolDefinition } from '../shared/tool-definition';
import type { ToolCall, ToolEffect } from '../shared/tool-types';
import type { AgentLoopOptions, ExecuteTool, LoopToolOutcome } from './agent-loop-options';
import { fallbackAnswer, finalAnswerInstruction } from './final-answer';
import { type AgentLoopCheckpoint, AgentLoopError, MAX_ITERATIONS_CAP, runAgentLoop } from './agent-loop';
import { toolDocument } from './selection/tool-index';
import { RequestTokenCounter } from './request-tokens';
import { SEARCH_TOOLS, ToolSelection } from './selection/tool-selection';

let callCounter = 0;
const call = (name: string, args: Record<string, unknown> | string = {}): ToolCall => ({
  id: `call_${++callCounter}`,
  name,
  arguments: typeof args === 'string' ? args : JSON.stringify(args),
});

/** Steps in which the model makes the given calls, one per response. */
const oneCallEach = (calls: ToolCall[]): ScriptStep[] => calls.map((toolCall) => ({ toolCalls: [toolCall] }));

const tool = (
  name: string,
  effect: ToolEffect,
  execute: ToolDefinition['execute'] = () => Promise.resolve({ response: `${name} ok` }),
): ToolDefinition => ({
  schema: {
    type: 'function',
    function: { name, parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
  },
  effect,
  execute,
});

/** A small stand-in for runTool: lookup, JSON + required-field check, execute, errors as data. */
const fakeExecuteTool =
  (tools: readonly ToolDefinition[]): ExecuteTool =>
  async (toolCall, messages, signal) => {
    const outcome = (status: LoopToolOutcome['status'], text: string): LoopToolOutcome => ({
      call: toolCall,
      toolName: toolCall.name,
      status,
      response: text,
      metadata: { duration_ms: 1 },
    });
    const definition = tools.find((candidate) => candidate.schema.function.name === toolCall.name);
    if (!definition) return outcome('not_found', `Unknown tool ${toolCall.name}`);
    let params: Record<string, unknown>;
    try {
      params = JSON.parse(toolCall.arguments) as Record<string, unknown>;
    } catch {
      return outcome('invalid_arguments', 'Arguments are not valid JSON');
    }
    if (typeof params.q !== 'string') return outcome('invalid_arguments', 'Missing required property q');
    try {
      const result = await definition.execute({
        call: toolCall,
        params,
        messages,
        signal,
        run: { runId: null, userId: 'u1', isAdmin: false, signal, depth: 0 },
      });
      return outcome('success', result.response);
    } catch (error) {
      return outcome('error', `Tool failed: ${(error as Error).message}`);
    }
  };

const startMessages: ChatMessage[] = [
  { role: 'system', content: 'You are helpful.' },
  { role: 'user', content: 'What is the weather in Oslo?' },
];

const setup = (
  script: ScriptStep[],
  tools: ToolDefinition[] = [tool('search', 'read_only')],
  overrides: Partial<AgentLoopOptions> = {},
) => {
  const { provider } = scriptedProvider(script);
  const options: AgentLoopOptions = {
    provider,
    model: 'test-model',
    messages: startMessages,
    tools,
    executeTool: fakeExecuteTool(tools),
    ...overrides,
  };
  return { provider, options, run: () => runAgentLoop(options) };
};

/** The OpenAI invariant: each assistant tool call id is answered by exactly one tool message, in call order. */
const expectEveryToolCallAnswered = (messages: readonly ChatMessage[]): void => {
  messages.forEach((message, index) => {
    if (message.role !== 'assistant' || !message.tool_calls) return;
    const answers = messages.slice(index + 1, index + 1 + message.tool_calls.length);
    expect(answers.map((answer) => (answer.role === 'tool' ? answer.tool_call_id : answer.role))).toEqual(
      message.tool_calls.map((toolCall) => toolCall.id),
    );
  });
  const toolIds = messages.flatMap((message) => (message.role === 'tool' ? [message.tool_call_id] : []));
  expect(new Set(toolIds).size).toBe(toolIds.length);
};

const toolMessages = (request: ChatRequest) => request.messages.filter((message) => message.role === 'tool');

const deferred = () => {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
};

const hangUntilAborted = (_request: ChatRequest, options?: ChatCallOptions): Promise<ChatResponse> =>
  new Promise((_resolve, reject) => {
    options?.signal?.addEventListener('abort', () => reject(new Error('aborted by signal')));
  });

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

  describe('max iterations', () => {
    const alwaysCalling = (count: number): ScriptStep[] =>
      Array.from({ length: count }, (_, index) => ({ toolCalls: [call('search', { q: `${index}` })] }));

    it('should make one last call with tool choice none and the tools, then return its answer', async () => {
      const { provider, run, options } = setup([...alwaysCalling(2), { content: 'Best effort answer.' }], undefined, {
        maxIterations: 2,
        toolChoice: 'auto',
      });
      const sut = await run();
      expect(provider.requests).toHaveLength(3);
      const last = provider.requests[2];
      expect(last.toolChoice).toBe('none');
      expect(last.tools).toEqual(options.tools.map((definition) => definition.schema));
      expect(last.messages.at(-1)).toEqual({ role: 'user', content: finalAnswerInstruction('max_iterations') });
      expect(sut).toMatchObject({ output: 'Best effort answer.', stopReason: 'max_iterations', iterationsUsed: 2 });
      expectEveryToolCallAnswered(sut.messages);
    });

    it('should ignore tool calls the final call still makes and use its text', async () => {
      const { run } = setup(
        [...alwaysCalling(1), { content: 'Here is what I know.', toolCalls: [call('search', { q: 'more' })] }],
        undefined,
        { maxIterations: 1 },
      );
      const sut = await run();
      expect(sut.output).toBe('Here is what I know.');
      expect(sut.toolCalls).toHaveLength(1);
      expect(sut.messages.at(-1)).toEqual({ role: 'assistant', content: 'Here is what I know.' });
      expectEveryToolCallAnswered(sut.messages);
    });

    it('should return a fallback explaining the limit when the final call has no text', async () => {
      const { run } = setup([...alwaysCalling(1), { toolCalls: [call('search', { q: 'more' })] }], undefined, {
        maxIterations: 1,
      });
      const sut = await run();
      expect(sut.output).toBe(fallbackAnswer('max_iterations'));
      expect(sut.output).not.toContain('search ok');
    });

    it('should throw without a final call when told to fail', async () => {
      const { provider, run } = setup(alwaysCalling(2), undefined, { maxIterations: 2, onMaxIterations: 'fail' });
      const error = await run().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(AgentLoopError);
      expect(error).toMatchObject({ stopReason: 'max_iterations', result: { iterationsUsed: 2 } });
      expect(provider.requests).toHaveLength(2);
    });

    it('should default to 5 iterations', async () => {
      const { provider, run } = setup([...alwaysCalling(5), { content: 'Final.' }]);
      const sut = await run();
      expect(provider.requests).toHaveLength(6);
      expect(sut.iterationsUsed).toBe(5);
    });

    it('should cap iterations at the hard limit', async () => {
      const { provider, run } = setup([...alwaysCalling(MAX_ITERATIONS_CAP + 5), { content: 'x' }], undefined, {
        maxIterations: 1000,
        repetitionLimit: 1000,
      });
      const sut = await run();
      expect(sut.iterationsUsed).toBe(MAX_ITERATIONS_CAP);
      expect(provider.requests.at(-1)?.toolChoice).toBe('none');
    });
  });

  describe('budgets', () => {
    it('should stop running tools past the tool call budget and force a final answer', async () => {
      const calls = [call('search', { q: '1' }), call('search', { q: '2' }), call('search', { q: '3' })];
      const { provider, run } = setup([{ toolCalls: calls }, { content: 'Partial.' }], undefined, { maxToolCalls: 2 });
      const sut = await run();
      expect(sut.toolCalls.map((record) => record.status)).toEqual(['success', 'success', 'skipped']);
      expect(toolMessages(provider.requests[1]).at(-1)?.content).toContain('tool call budget');
      expect(provider.requests[1].toolChoice).toBe('none');
      expect(sut).toMatchObject({ output: 'Partial.', stopReason: 'budget_tool_calls' });
      expectEveryToolCallAnswered(sut.messages);
    });

    it('should ask startToolCall before every call, search_tools included, and start none it refuses', async () => {
      const lookup = jest.fn(() => Promise.resolve({ response: 'lookup ok' }));
      const tools = [tool('search', 'read_only'), tool('lookup', 'read_only', lookup), tool('fetch', 'read_only')];
      const controller = new AbortController();
      let budget = 1;
      const startToolCall = jest.fn(() => {
        if (budget === 0) controller.abort(new Error('over budget'));
        budget -= 1;
        return !controller.signal.aborted;
      });
      const { run } = setup(
        [{ toolCalls: [call(SEARCH_TOOLS, { query: 'lookup' })] }, { toolCalls: [call('lookup', { q: '1' })] }],
        tools,
        {
          startToolCall,
          signal: controller.signal,
          toolSelection: new ToolSelection(
            1,
            [],
            tools.map((entry) => entry.schema),
            tools.map((entry) => toolDocument(entry.schema)),
          ),
        },
      );

      await expect(run()).rejects.toMatchObject({ stopReason: 'cancelled' });

      expect(startToolCall).toHaveBeenCalledTimes(2);
      expect(lookup).not.toHaveBeenCalled();
    });

    it('should end with budget_tokens, making no final call past a token budget that is used up', async () => {
      const { provider, run } = setup(
        [
          {
            toolCalls: [call('search', { q: '1' })],
            usage: { promptTokens: 80, completionTokens: 30, totalTokens: 110 },
          },
          { content: 'Never asked for.' },
        ],
        undefined,
        { maxTotalTokens: 100 },
      );
      const sut = await run();
      expect(provider.requests).toHaveLength(1);
      expect(sut).toMatchObject({ stopReason: 'budget_tokens', usage: { totalTokens: 110, modelCalls: 1 } });
      expect(sut.output).toContain(fallbackAnswer('budget_tokens'));
      expect(sut.error).toMatch(/does not fit the node's budget of 100 tokens \(max_total_tokens\).*0 are left/);
    });

    it("should cap each call's maxTokens to what the node's token budget leaves after its prompt", async () => {
      const { provider, run } = setup(
        [
          {
            toolCalls: [call('search', { q: '1' })],
            usage: { promptTokens: 300, completionTokens: 200, totalTokens: 500 },
          },
          { content: 'Done.' },
        ],
        undefined,
        { maxTotalTokens: 1000 },
      );
      const sut = await run();
      const counter = new RequestTokenCounter();
      const promptOf = (request: ChatRequest) => counter.count(request.messages, request.tools ?? []);
      expect(sut.stopReason).toBe('answered');
      expect(provider.requests.map((request) => request.maxTokens)).toEqual([
        1000 - promptOf(provider.requests[0]),
        500 - promptOf(provider.requests[1]),
      ]);
    });

    it("should send the smaller of the node's max_tokens and what the budget leaves after the prompt", async () => {
      const { provider, run } = setup(
        [
          {
            toolCalls: [call('search', { q: '1' })],
            usage: { promptTokens: 600, completionTokens: 100, totalTokens: 700 },
          },
          { content: 'Done.' },
        ],
        undefined,
        { maxTotalTokens: 1000, maxTokens: 300 },
      );
      await run();
      const second = provider.requests[1];
      const prompt = new RequestTokenCounter().count(second.messages, second.tools ?? []);
      expect(provider.requests.map((request) => request.maxTokens)).toEqual([300, 300 - prompt]);
    });

    it('should leave the request as it is when no token budget is set', async () => {
      const { provider, run } = setup([{ content: 'Done.' }], undefined, {
        runTokens: { left: () => undefined, refuse: jest.fn() },
      });
      await run();
      expect(provider.requests[0]).not.toHaveProperty('maxTokens');
    });

    it("should make no call whose prompt the node's budget cannot hold, and say why", async () => {
      const { provider, run } = setup([{ content: 'Never asked for.' }], undefined, { maxTotalTokens: 40 });
      const sut = await run();
      expect(provider.requests).toHaveLength(0);
      expect(sut).toMatchObject({ stopReason: 'budget_tokens', usage: { totalTokens: 0, modelCalls: 0 } });
      expect(sut.output).toMatch(/^No final answer was produced.*its prompt alone needs about \d+ tokens/);
    });

    it('should keep room for the output a provider adds to maxTokens (a thinking budget)', async () => {
      const { provider, options } = setup([{ content: 'Done.' }], undefined, {
        maxTotalTokens: 2000,
        reasoningEffort: 'low',
      });
      const thinking = {
        ...provider,
        chat: provider.chat.bind(provider),
        outputTokens: ({ maxTokens = 4096 }) => maxTokens + 1024,
      };
      await runAgentLoop({ ...options, provider: thinking });
      const prompt = new RequestTokenCounter().count(provider.requests[0].messages, provider.requests[0].tools ?? []);
      expect(provider.requests[0].maxTokens).toBe(2000 - 1024 - prompt);
    });

    it("should let the run's budget refuse a call it cannot hold, ending the loop without the call", async () => {
      const controller = new AbortController();
      const refuse = jest.fn(() => controller.abort());
      const { provider, run } = setup([{ content: 'Never asked for.' }], undefined, {
        maxTotalTokens: 100_000,
        runTokens: { left: () => 40, refuse },
        signal: controller.signal,
      });
      await expect(run()).rejects.toMatchObject({ stopReason: 'cancelled' });
      expect(provider.requests).toHaveLength(0);
      expect(refuse).toHaveBeenCalledWith(expect.any(Number), 0);
    });

    it('should stop at the time limit without a final call and explain why', async () => {
      const { provider, run } = setup([{ toolCalls: [call('search', { q: '1' })] }, hangUntilAborted], undefined, {
        timeoutMs: 5,
      });
      const sut = await run();
      expect(provider.requests).toHaveLength(2);
      expect(sut).toMatchObject({ output: fallbackAnswer('timeout'), stopReason: 'timeout', iterationsUsed: 1 });
      expect(sut.error).toContain('time limit');
    });

    it('should answer a tool call cut off by the time limit so the history stays valid', async () => {
      const hanging = tool('hang', 'mutating', () => new Promise(() => undefined));
      const first = call('hang', { q: '1' });
      const { run } = setup(
        [{ toolCalls: [first, call('search', { q: '2' })] }],
        [hanging, tool('search', 'read_only')],
        {
          timeoutMs: 5,
        },
      );
      const sut = await run();
      expect(sut.stopReason).toBe('timeout');
      expect(sut.toolCalls.map((record) => record.status)).toEqual(['cancelled', 'skipped']);
      expectEveryToolCallAnswered(sut.messages);
    });
  });

  describe('repetition', () => {
    it('should warn at the repetition limit and force a final answer when the model persists', async () => {
      const same = Array.from({ length: 4 }, () => call('search', { q: 'same' }));
      const { provider, run } = setup([...oneCallEach(same), { content: 'Stopping.' }], undefined, {
        repetitionLimit: 3,
        maxIterations: 10,
      });
      const sut = await run();
      expect(toolMessages(provider.requests[2]).at(-1)?.content).toBe('search ok');
      expect(toolMessages(provider.requests[3]).at(-1)?.content).toMatch(
        /^search ok\n\n\[Note: you have called search/,
      );
      expect(sut.toolCalls.at(-1)).toMatchObject({ id: same[3].id, status: 'skipped' });
      expect(provider.requests[4].toolChoice).toBe('none');
      expect(sut).toMatchObject({ output: 'Stopping.', stopReason: 'repetition', iterationsUsed: 4 });
    });

    it('should not count calls with different arguments as repetition', async () => {
      const { run } = setup(
        [...oneCallEach([1, 2, 3, 4].map((n) => call('search', { q: `${n}` }))), { content: 'Done.' }],
        undefined,
        { repetitionLimit: 2, maxIterations: 10 },
      );
      const sut = await run();
      expect(sut.stopReason).toBe('answered');
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

  describe('cancellation and failures', () => {
    it('should throw a cancelled error without calling the model when already aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      const { provider, run } = setup([{ content: 'never' }], undefined, { signal: controller.signal });
      await expect(run()).rejects.toMatchObject({ name: 'AgentLoopError', stopReason: 'cancelled' });
      expect(provider.requests).toHaveLength(0);
    });

    it('should stop at once when cancelled during a tool call and keep the history valid', async () => {
      const controller = new AbortController();
      const blocking = tool('block', 'mutating', () => {
        controller.abort();
        return new Promise(() => undefined);
      });
      const { provider, run } = setup(
        [{ toolCalls: [call('block', { q: '1' }), call('search', { q: '2' })] }, { content: 'never' }],
        [blocking, tool('search', 'read_only')],
        { signal: controller.signal },
      );
      const error = (await run().catch((caught: unknown) => caught)) as AgentLoopError;
      expect(error).toBeInstanceOf(AgentLoopError);
      expect(error.stopReason).toBe('cancelled');
      expect(error.result.toolCalls.map((record) => record.status)).toEqual(['cancelled', 'skipped']);
      expectEveryToolCallAnswered(error.result.messages);
      expect(provider.requests).toHaveLength(1);
    });

    it('should fail with the provider message and keep the ProviderError as cause', async () => {
      const providerError = new ProviderError('401 invalid api key', 401, false);
      const { run } = setup([() => Promise.reject(providerError)]);
      const error = (await run().catch((caught: unknown) => caught)) as AgentLoopError;
      expect(error).toBeInstanceOf(AgentLoopError);
      expect(error).toMatchObject({ stopReason: 'error', message: '401 invalid api key', cause: providerError });
      expect(error.result.usage.modelCalls).toBe(0);
    });
  });

  describe('hooks and usage', () => {
    it('should forward stream events and report each model call and executed tool call', async () => {
      const first = call('search', { q: 'x' });
      const seen: unknown[] = [];
      const streaming = (_request: ChatRequest, options?: ChatCallOptions) => {
        options?.onEvent?.({ type: 'tool-call-start', index: 0, id: first.id, name: 'search' });
        options?.onEvent?.({ type: 'tool-args-delta', index: 0, id: first.id, delta: first.arguments });
        return Promise.resolve(chatResponse({ toolCalls: [first] }));
      };
      const answering = (_request: ChatRequest, options?: ChatCallOptions) => {
        options?.onEvent?.({ type: 'text-delta', delta: 'Done.' });
        return Promise.resolve(chatResponse({ content: 'Done.' }));
      };
      const { run } = setup([streaming, answering], undefined, {
        hooks: {
          onToolCall: (event) => seen.push(['tool-call', event]),
          onToolParam: (event) => seen.push(['tool-param', event]),
          onAfterToolCall: (outcome) => seen.push(['after-tool-call', outcome.call.id, outcome.status]),
          onText: (delta) => seen.push(['text', delta]),
          onModelCall: (event) => seen.push(['model-call', event.iteration, event.usage.totalTokens]),
        },
      });
      const sut = await run();
      expect(seen).toEqual([
        ['tool-call', { id: first.id, name: 'search', index: 0 }],
        ['tool-param', { id: first.id, name: 'search', argsDelta: first.arguments }],
        ['model-call', 1, 15],
        ['after-tool-call', first.id, 'success'],
        ['text', 'Done.'],
        ['model-call', 2, 15],
      ]);
      expect(sut.usage).toEqual({ promptTokens: 20, completionTokens: 10, totalTokens: 30, modelCalls: 2 });
    });
  });

  describe('checkpoints and resume', () => {
    /** Runs a loop whose tools block on `gate` after `blockAfter` executions, and keeps every stored state. */
    const crashAfterCheckpoints = async (script: ScriptStep[], tools: ToolDefinition[], crashAt: number) => {
      const states: AgentLoopCheckpoint[] = [];
      const controller = new AbortController();
      const { run } = setup(script, tools, {
        signal: controller.signal,
        onCheckpoint: (state) => {
          states.push(structuredClone(state));
          if (states.length === crashAt) controller.abort(new Error('process died'));
          return Promise.resolve();
        },
      });
      await expect(run()).rejects.toMatchObject({ stopReason: 'cancelled' });
      return states.at(-1) as AgentLoopCheckpoint;
    };

    it('should store the state after the model response before any call starts, and after every result', async () => {
      const executed: string[] = [];
      const first = call('search', { q: 'a' });
      const second = call('write', { q: 'b' });
      const tools = [
        tool('search', 'read_only', () => (executed.push('search'), Promise.resolve({ response: 'found' }))),
        tool('write', 'mutating', () => (executed.push('write'), Promise.resolve({ response: 'written' }))),
      ];
      const states: AgentLoopCheckpoint[] = [];
      const { run } = setup([{ toolCalls: [first, second] }, { content: 'Done.' }], tools, {
        onCheckpoint: (state) => {
          states.push(structuredClone(state));
          return Promise.resolve();
        },
      });

      await run();

      expect(states.map((state) => state.round?.calls.map((item) => item.answer?.status ?? null))).toEqual([
        [null, null],
        ['success', null],
        ['success', 'success'],
      ]);
      expect(states[0].messages.at(-1)).toMatchObject({ role: 'assistant' });
      expect(states[0].usage.modelCalls).toBe(1);
    });

    it("should call the model again while the round's last results are being stored, and end once they are", async () => {
      const storing = deferred();
      const states: AgentLoopCheckpoint[] = [];
      const { provider, run } = setup([{ toolCalls: [call('search', { q: 'a' })] }, { content: 'Found.' }], undefined, {
        onCheckpoint: (state) => {
          states.push(structuredClone(state));
          return state.round?.calls[0].answer ? storing.promise : Promise.resolve();
        },
      });
      let ended = false;

      const result = run().then((value) => ((ended = true), value));
      for (let tick = 0; tick < 20; tick++) await new Promise((resolve) => setImmediate(resolve));

      expect(provider.requests).toHaveLength(2);
      expect(ended).toBe(false);
      expect(toolMessages(provider.requests[1]).map((message) => message.content)).toEqual(['search ok']);
      storing.resolve();
      await expect(result).resolves.toMatchObject({ output: 'Found.' });
      expect(states.map((state) => state.round?.calls[0].answer?.status ?? null)).toEqual([null, 'success']);
    });

    it("should fail when the round's last result could not be stored during the next model call", async () => {
      const { run } = setup([{ toolCalls: [call('search', { q: 'a' })] }, { content: 'Found.' }], undefined, {
        onCheckpoint: (state) =>
          state.round?.calls[0].answer ? Promise.reject(new Error('database down')) : Promise.resolve(),
      });

      await expect(run()).rejects.toMatchObject({ stopReason: 'error', message: 'database down' });
    });

    it('should store the result of a call before a call of the next batch starts', async () => {
      const storing = deferred();
      const executed: string[] = [];
      const tools = [
        tool(
          'write',
          'mutating',
          ({ params }) => (executed.push(String(params.q)), Promise.resolve({ response: 'ok' })),
        ),
      ];
      const { run } = setup(
        [{ toolCalls: [call('write', { q: 'a' }), call('write', { q: 'b' })] }, { content: 'Done.' }],
        tools,
        {
          onCheckpoint: (state) =>
            state.round?.calls[0].answer && !state.round.calls[1].answer ? storing.promise : Promise.resolve(),
        },
      );

      const result = run();
      for (let tick = 0; tick < 20; tick++) await new Promise((resolve) => setImmediate(resolve));

      expect(executed).toEqual(['a']);
      storing.resolve();
      await result;
      expect(executed).toEqual(['a', 'b']);
    });

    it('should not repeat stored model responses or tool results, and run the calls that had not started', async () => {
      const [first, second, third] = [call('write', { q: 'a' }), call('write', { q: 'b' }), call('write', { q: 'c' })];
      const writes: string[] = [];
      const tools = [
        tool('write', 'mutating', ({ params }) => {
          writes.push(String(params.q));
          return Promise.resolve({ response: `wrote ${String(params.q)}` });
        }),
      ];
      // Stored after the first write's result: the second may have been executing, the third had not started.
      const stored = await crashAfterCheckpoints([{ toolCalls: [first, second, third] }], tools, 2);
      writes.length = 0;

      const { provider, run } = setup([{ content: 'Written.' }], tools, { resume: stored });
      const sut = await run();

      expect(writes).toEqual(['c']);
      expect(provider.requests).toHaveLength(1);
      expect(toolMessages(provider.requests[0]).map((message) => message.content)).toEqual([
        'wrote a',
        expect.stringMatching(/unknown/),
        'wrote c',
      ]);
      expect(sut.toolCalls.map((record) => record.status)).toEqual(['success', 'unknown_outcome', 'success']);
      expect(sut.usage.modelCalls).toBe(2);
      expectEveryToolCallAnswered(sut.messages);
    });

    it('should not repeat a mutating call that was executing, answer it as unknown_outcome, and record it', async () => {
      const pending = call('write', { q: 'a' });
      const stored: AgentLoopCheckpoint = await crashAfterCheckpoints(
        [{ toolCalls: [pending] }],
        [tool('write', 'mutating')],
        1,
      );
      const executed: string[] = [];
      const unrun: Array<[string, string]> = [];
      const tools = [tool('write', 'mutating', () => (executed.push('write'), Promise.resolve({ response: 'x' })))];

      const { provider, run } = setup([{ content: 'Not sure it was written.' }], tools, {
        resume: stored,
        onUnrunCall: (toolCall, status) => {
          unrun.push([toolCall.id, status]);
          return Promise.resolve();
        },
      });
      const sut = await run();

      expect(executed).toEqual([]);
      expect(unrun).toEqual([[pending.id, 'unknown_outcome']]);
      expect(sut.toolCalls).toEqual([expect.objectContaining({ id: pending.id, status: 'unknown_outcome' })]);
      expect(toolMessages(provider.requests[0])[0].content).toMatch(/outcome of this call is unknown.*not repeated/);
    });

    it('should store no credential argument of a call once it is answered, and keep a repeatable call in flight runnable', async () => {
      const secret = 'hunter2-secret-value';
      const received: unknown[] = [];
      const search = tool(
        'search',
        'read_only',
        ({ params }) => (received.push(params.password), Promise.resolve({ response: 'found' })),
      );
      const tools = [search, tool('write', 'mutating')];
      const pending = call('search', { q: 'a', password: secret });
      const states: AgentLoopCheckpoint[] = [];
      const { run } = setup(
        [{ toolCalls: [call('write', { q: 'b', password: secret }), pending] }, { content: 'Done.' }],
        tools,
        {
          onCheckpoint: (state) => (states.push(structuredClone(state)), Promise.resolve()),
        },
      );

      await run();

      const stored = states.map((state) => JSON.stringify(state).includes(secret));
      // Before the calls start only the read-only one (run again after a crash) is kept as written.
      expect(stored).toEqual([true, true, false]);
      expect(states[0].round?.calls.map((item) => item.call.arguments.includes(secret))).toEqual([false, true]);
      expect(JSON.stringify(states[0].messages)).not.toContain(secret);

      const resumed = setup([{ content: 'Found.' }], tools, { resume: states[1] });
      const sut = await resumed.run();

      expect(received).toEqual([secret, secret]);
      expect(sut.toolCalls.map((record) => record.status)).toEqual(['success', 'success']);
      expect(toolMessages(resumed.provider.requests[0]).map((message) => message.content)).toEqual([
        'write ok',
        'found',
      ]);
    });

    it('should run a read-only call that was executing again', async () => {
      const pending = call('search', { q: 'a' });
      const stored = await crashAfterCheckpoints([{ toolCalls: [pending] }], [tool('search', 'read_only')], 1);

      const { provider, run } = setup([{ content: 'Found.' }], [tool('search', 'read_only')], { resume: stored });
      const sut = await run();

      expect(sut.toolCalls.map((record) => record.status)).toEqual(['success']);
      expect(toolMessages(provider.requests[0])[0].content).toBe('search ok');
    });
  });
});
