import { encode } from 'gpt-tokenizer';
import { scriptedProvider } from '../../test/factories/scripted-provider.factory';
import type { ChatRequest } from '../llm/provider';
import type { ToolCall } from '../shared/tool-types';
import type { ExecuteTool, LoopToolOutcome, ToolResultLimit } from './agent-loop-options';
import { READ_TOOL_RESULT, readToolResultTool } from './read-tool-result';
import { runAgentLoop } from './agent-loop';
import { RequestTokenCounter } from './request-tokens';

const call = (id: string, name: string, args: Record<string, unknown> = {}): ToolCall => ({
  id,
  name,
  arguments: JSON.stringify(args),
});
const names = (request: ChatRequest) => (request.tools ?? []).map((tool) => tool.function.name);
const toolContents = (request: ChatRequest) =>
  request.messages.flatMap((message) => (message.role === 'tool' ? [message.content] : []));

describe('runAgentLoop tool result limit', () => {
  const big = Array.from({ length: 3000 }, (_, index) => `line ${index}: ${'data '.repeat(8)}`).join('\n');
  const stored = new Map<string, string>();
  const reader = readToolResultTool((ref) => Promise.resolve(stored.get(ref) ?? null), 500);
  const executeTool: ExecuteTool = async (toolCall, messages, signal) => {
    const outcome = (response: string): LoopToolOutcome => ({
      call: toolCall,
      toolName: toolCall.name,
      status: 'success',
      response,
    });
    if (toolCall.name !== READ_TOOL_RESULT) return outcome(toolCall.name === 'dump' ? big : 'small');
    const params = JSON.parse(toolCall.arguments) as Record<string, unknown>;
    const run = { runId: 'r', userId: 'u', isAdmin: false, signal, depth: 0 };
    return outcome((await reader.execute({ call: toolCall, params, messages, signal, run })).response);
  };
  const schema = (name: string) => ({
    schema: { type: 'function' as const, function: { name, parameters: { type: 'object' } } },
    effect: 'read_only' as const,
  });

  it('should cut a long result for the model, store it once and offer read_tool_result from then on', async () => {
    const { provider, requests } = scriptedProvider([
      { toolCalls: [call('c1', 'small')] },
      { toolCalls: [call('c2', 'dump')] },
      { toolCalls: [call('c3', READ_TOOL_RESULT, { ref: 'ref-c2', offset: 100 })] },
      { content: 'Done.' },
    ]);
    const store = jest.fn((toolCall: ToolCall, text: string) => {
      stored.set(`ref-${toolCall.id}`, text);
      return Promise.resolve(`ref-${toolCall.id}`);
    });

    const result = await runAgentLoop({
      provider,
      model: 'm',
      messages: [{ role: 'user', content: 'Dump it.' }],
      tools: [schema('small'), schema('dump')],
      executeTool,
      toolResults: { maxTokens: 500, store },
    });

    expect(result.output).toBe('Done.');
    expect(requests.map(names)).toEqual([
      ['small', 'dump'],
      ['small', 'dump'],
      ['small', 'dump', READ_TOOL_RESULT],
      ['small', 'dump', READ_TOOL_RESULT],
    ]);
    expect(store).toHaveBeenCalledTimes(1);
    expect(store).toHaveBeenCalledWith(expect.objectContaining({ id: 'c2' }), big);
    const [small, cut, page] = toolContents(requests[3]);
    expect(small).toBe('small');
    expect(encode(cut).length).toBeLessThanOrEqual(500);
    expect(cut.startsWith('line 0: data')).toBe(true);
    expect(cut).toContain(`line 2999: ${'data '.repeat(8)}`.trim());
    expect(cut).toContain('ref "ref-c2"');
    expect(page.startsWith(big.slice(100, 160))).toBe(true);
    expect(encode(page).length).toBeLessThanOrEqual(500);
    expect(page).toMatch(/\[characters 100 to \d+ of \d+; next offset \d+\]$/);
  });

  /** A loop in which the model calls dump once, then answers; gives back the requests the model got. */
  const dumpOnce = async (toolResults?: ToolResultLimit): Promise<ChatRequest[]> => {
    const { provider, requests } = scriptedProvider([{ toolCalls: [call('c1', 'dump')] }, { content: 'Ok.' }]);
    await runAgentLoop({
      provider,
      model: 'm',
      messages: [{ role: 'user', content: 'Dump it.' }],
      tools: [schema('dump')],
      executeTool,
      ...(toolResults ? { toolResults } : {}),
    });
    return requests;
  };

  it('should still cut a result it could not store, and say so', async () => {
    const requests = await dumpOnce({ maxTokens: 500, store: () => Promise.reject(new Error('database down')) });

    expect(toolContents(requests[1])[0]).toContain('The full result could not be stored.');
  });

  it('should pass every result through untouched without a limit', async () => {
    const requests = await dumpOnce();

    expect(toolContents(requests[1])).toEqual([big]);
    expect(names(requests[1])).toEqual(['dump']);
  });

  it('should give the model a summary of a long result with the ref of the whole, counting its tokens', async () => {
    const { provider, requests } = scriptedProvider([
      { toolCalls: [call('c1', 'dump')] },
      {
        content: '3000 lines of data, numbered 0 to 2999.',
        usage: { promptTokens: 900, completionTokens: 12, totalTokens: 912 },
      },
      { content: 'There are 3000 lines.' },
    ]);

    const result = await runAgentLoop({
      provider,
      model: 'big-model',
      messages: [{ role: 'user', content: 'How many lines are there?' }],
      tools: [schema('dump')],
      executeTool,
      toolResults: {
        maxTokens: 500,
        store: () => Promise.resolve('ref-sum'),
        summarize: { model: 'small-model', inputTokens: 1000 },
      },
    });

    expect(result.output).toBe('There are 3000 lines.');
    const summarising = requests[1];
    expect(summarising.model).toBe('small-model');
    expect(summarising.tools).toBeUndefined();
    expect(summarising.maxTokens).toBe(500);
    expect(summarising.messages[1].content).toContain('Task: How many lines are there?');
    expect(encode(String(summarising.messages[1].content)).length).toBeLessThan(1200);
    const [content] = toolContents(requests[2]);
    expect(content).toMatch(
      /^3000 lines of data, numbered 0 to 2999\.\n\[Tool result cut to fit 500 tokens: summarised by small-model/,
    );
    expect(content).toContain('ref "ref-sum"');
    expect(names(requests[2])).toEqual(['dump', READ_TOOL_RESULT]);
    expect(result.usage).toMatchObject({ promptTokens: 920, completionTokens: 22, modelCalls: 2 });
  });

  it('should cut the result as usual when the summary fails', async () => {
    const { provider, requests } = scriptedProvider([{ toolCalls: [call('c1', 'dump')] }, { content: 'Ok.' }]);
    const failingSummaries = {
      name: 'failing-summaries',
      chat: (request: ChatRequest) =>
        request.model === 'small-model' ? Promise.reject(new Error('overloaded')) : provider.chat(request),
    };

    const result = await runAgentLoop({
      provider: failingSummaries,
      model: 'm',
      messages: [{ role: 'user', content: 'Dump it.' }],
      tools: [schema('dump')],
      executeTool,
      toolResults: {
        maxTokens: 500,
        store: () => Promise.resolve('ref-x'),
        summarize: { model: 'small-model', inputTokens: 1000 },
      },
    });

    expect(result.output).toBe('Ok.');
    expect(toolContents(requests[1])[0]).toContain('[Tool result cut to fit 500 tokens: kept the first');
    expect(toolContents(requests[1])[0]).toContain('ref "ref-x"');
  });

  const summarised = (maxTotalTokens: number, answers: string[]) => {
    const { provider, requests } = scriptedProvider([
      { toolCalls: [call('c1', 'dump')] },
      ...answers.map((content) => ({ content })),
    ]);
    const result = runAgentLoop({
      provider,
      model: 'm',
      messages: [{ role: 'user', content: 'Dump it.' }],
      tools: [schema('dump')],
      executeTool,
      maxTotalTokens,
      toolResults: {
        maxTokens: 500,
        store: () => Promise.resolve('ref-b'),
        summarize: { model: 'small-model', inputTokens: 1000 },
      },
    });
    return { result, requests };
  };

  it("should cap a summary's maxTokens to what the token budget leaves after its prompt", async () => {
    const { result, requests } = summarised(15 + 1400, ['A summary.', 'Ok.']);
    await result;

    const summarising = requests[1];
    expect(summarising.model).toBe('small-model');
    const prompt = new RequestTokenCounter().count(summarising.messages, []);
    expect(prompt).toBeGreaterThan(1400 - 500);
    expect(summarising.maxTokens).toBe(1400 - prompt);
  });

  it('should cut the result instead of summarising it when the token budget cannot hold the summary', async () => {
    const { result, requests } = summarised(15 + 800, ['Ok.', 'Never asked for.']);

    expect(await result).toMatchObject({ output: 'Ok.', stopReason: 'answered' });
    expect(requests.map((request) => request.model)).toEqual(['m', 'm']);
    expect(toolContents(requests[1])[0]).toContain('[Tool result cut to fit 500 tokens: kept the first');
  });
});

describe('runAgentLoop context window', () => {
  const chapter = (round: number) => Array.from({ length: 300 }, (_, index) => `c${round}w${index}`).join(' ');
  const executeTool: ExecuteTool = (toolCall) =>
    Promise.resolve({
      call: toolCall,
      toolName: toolCall.name,
      status: 'success',
      response: chapter(Number((JSON.parse(toolCall.arguments) as { round: number }).round)),
    });
  const read = {
    schema: { type: 'function' as const, function: { name: 'read', parameters: { type: 'object' } } },
    effect: 'read_only' as const,
  };

  it('should trim the requests but keep the whole conversation in its result and checkpoints', async () => {
    const rounds = 8;
    const { provider, requests } = scriptedProvider([
      ...Array.from({ length: rounds }, (_, round) => ({ toolCalls: [call(`c${round}`, 'read', { round })] })),
      { content: 'Read them all.' },
    ]);
    const trims: Array<{ iteration: number; droppedMessages: number }> = [];
    const checkpoints: number[] = [];

    const result = await runAgentLoop({
      provider,
      model: 'm',
      messages: [
        { role: 'system', content: 'You read.' },
        { role: 'user', content: 'Read every chapter.' },
      ],
      tools: [read],
      executeTool,
      maxIterations: rounds + 1,
      maxTokens: 300,
      contextWindow: 3000,
      onCheckpoint: (state) => {
        checkpoints.push(state.messages.length);
        return Promise.resolve();
      },
      hooks: { onContextTrimmed: (trim) => trims.push(trim) },
    });

    expect(result.output).toBe('Read them all.');
    expect(result.messages).toHaveLength(2 + 2 * rounds + 1);
    // The last checkpoint holds the last calls; their results joined the history after it.
    expect(Math.max(...checkpoints)).toBe(2 + 2 * rounds - 1);
    expect(trims.length).toBeGreaterThan(0);
    expect(trims.at(-1)).toMatchObject({ iteration: rounds + 1 });
    expect(trims.at(-1)?.droppedMessages).toBeGreaterThan(0);
    expect(requests.at(-1)?.messages.length).toBeLessThan(2 + 2 * rounds);
    const last = requests.at(-1);
    expect(last?.messages.slice(0, 1)).toEqual([{ role: 'system', content: 'You read.' }]);
    expect(last?.messages[1].content).toContain('Read every chapter.');
    expect(last?.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: `c${rounds - 1}`,
      content: chapter(rounds - 1),
    });
  });

  it('should keep free the output tokens the provider really asks for, not only max_tokens', async () => {
    const { provider, requests } = scriptedProvider([
      { toolCalls: [call('c0', 'read', { round: 0 })] },
      { toolCalls: [call('c1', 'read', { round: 1 })] },
      { content: 'Done.' },
    ]);
    const trims: Array<{ reservedTokens: number; droppedMessages: number; shortenedResults: number }> = [];

    await runAgentLoop({
      provider: { ...provider, name: provider.name, outputTokens: ({ maxTokens = 0 }) => maxTokens + 2000 },
      model: 'm',
      messages: [{ role: 'user', content: 'Read two chapters.' }],
      tools: [read],
      executeTool,
      maxTokens: 500,
      contextWindow: 4500,
      hooks: { onContextTrimmed: (trim) => trims.push(trim) },
    });

    expect(trims).toEqual([expect.objectContaining({ reservedTokens: 2500, shortenedResults: 1, droppedMessages: 0 })]);
    expect(requests[2].messages[2].content).toContain('[Older tool result shortened to fit the context window');
  });
});
