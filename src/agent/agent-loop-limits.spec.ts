import type { ScriptStep } from '../../test/factories/scripted-provider.factory';
import { type ChatRequest } from '../llm/provider';
import { fallbackAnswer, finalAnswerInstruction } from './final-answer';
import { AgentLoopError, MAX_ITERATIONS_CAP, runAgentLoop } from './agent-loop';
import { toolDocument } from './selection/tool-index';
import { RequestTokenCounter } from './request-tokens';
import { SEARCH_TOOLS, ToolSelection } from './selection/tool-selection';
import {
  call,
  expectEveryToolCallAnswered,
  hangUntilAborted,
  oneCallEach,
  setup,
  tool,
  toolMessages,
} from '../../test/support/agent-loop-harness';

describe(runAgentLoop.name, () => {
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
});
