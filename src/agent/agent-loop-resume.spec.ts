import { chatResponse } from '../../test/factories/chat-response.factory';
import type { ScriptStep } from '../../test/factories/scripted-provider.factory';
import { ProviderError, type ChatCallOptions, type ChatRequest } from '../llm/provider';
import type { ToolDefinition } from '../shared/tool-definition';
import { type AgentLoopCheckpoint, AgentLoopError, runAgentLoop } from './agent-loop';
import {
  call,
  deferred,
  expectEveryToolCallAnswered,
  setup,
  tool,
  toolMessages,
} from '../../test/support/agent-loop-harness';

describe(runAgentLoop.name, () => {
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
