import { scriptedProvider, type ScriptStep } from '../../test/factories/scripted-provider.factory';
import type { ResponseFormat } from '../llm/provider';
import type { AnswerCheck, AnswerRetry } from './answer-check';
import { finalAnswerInstruction } from './final-answer';
import type { AgentLoopCheckpoint } from './loop-checkpoint';
import { runAgentLoop } from './agent-loop';

/** Passes answers that are JSON objects with a string `city`. */
const cityCheck = (retries: number): AnswerCheck => ({
  retries,
  check: (answer) => {
    try {
      const value = JSON.parse(answer) as { city?: unknown };
      if (typeof value.city === 'string') return { ok: true };
    } catch {
      return { ok: false, problems: ['not JSON'], feedback: 'Fix: not JSON' };
    }
    return { ok: false, problems: ['/city missing'], feedback: 'Fix: /city missing' };
  },
});

const format: ResponseFormat = {
  name: 'llm-1',
  schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

const search = {
  schema: {
    type: 'function' as const,
    function: { name: 'search', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
  },
  effect: 'read_only' as const,
};

describe(`${runAgentLoop.name} answer check`, () => {
  const loop = (script: ScriptStep[], options: Partial<Parameters<typeof runAgentLoop>[0]> = {}) => {
    const { provider, requests } = scriptedProvider(script);
    const retries: AnswerRetry[] = [];
    const result = runAgentLoop({
      provider,
      model: 'm',
      messages: [{ role: 'user', content: 'Where?' }],
      tools: [],
      executeTool: (call) =>
        Promise.resolve({ call, toolName: call.name, status: 'success' as const, response: 'Paris is nice.' }),
      answerCheck: cityCheck(1),
      responseFormat: format,
      ...options,
      hooks: { onAnswerRetry: (retry) => retries.push(retry) },
    });
    return { result, requests, retries };
  };

  it('should send a failing answer back once with the feedback and return the fixed one', async () => {
    const sut = loop([{ content: '{"town":"Paris"}' }, { content: '{"city":"Paris"}' }]);

    const result = await sut.result;

    expect(result).toMatchObject({ output: '{"city":"Paris"}', answerRetries: 1, stopReason: 'answered' });
    expect(sut.retries).toEqual([{ attempt: 1, problems: ['/city missing'] }]);
    expect(sut.requests).toHaveLength(2);
    expect(sut.requests[1].messages.slice(-2)).toEqual([
      { role: 'assistant', content: '{"town":"Paris"}' },
      { role: 'user', content: 'Fix: /city missing' },
    ]);
  });

  it('should return the last answer when it still fails after the retries', async () => {
    const sut = loop([{ content: 'Paris' }, { content: '{"town":"Paris"}' }]);

    const result = await sut.result;

    expect(result).toMatchObject({ output: '{"town":"Paris"}', answerRetries: 1 });
    expect(sut.retries.map((retry) => retry.problems)).toEqual([['not JSON']]);
    expect(sut.requests).toHaveLength(2);
  });

  it('should send nothing back with no retries allowed', async () => {
    const sut = loop([{ content: 'Paris' }], { answerCheck: cityCheck(0) });

    expect(await sut.result).toMatchObject({ output: 'Paris', answerRetries: 0 });
    expect(sut.retries).toEqual([]);
  });

  it('should send the response format with every model call, tools or not', async () => {
    const sut = loop(
      [
        { toolCalls: [{ id: 'call_1', name: 'search', arguments: '{"q":"city"}' }], finishReason: 'tool_calls' },
        { content: '{"city":"Paris"}' },
      ],
      { tools: [search] },
    );

    await sut.result;

    expect(sut.requests.map((request) => request.responseFormat)).toEqual([format, format]);
  });

  it('should check the answer asked for at a limit and ask again with the feedback', async () => {
    const sut = loop(
      [
        { toolCalls: [{ id: 'call_1', name: 'search', arguments: '{"q":"a"}' }], finishReason: 'tool_calls' },
        { content: 'Paris' },
        { content: '{"city":"Paris"}' },
      ],
      { tools: [search], maxIterations: 1 },
    );

    const result = await sut.result;

    expect(result).toMatchObject({ output: '{"city":"Paris"}', stopReason: 'max_iterations', answerRetries: 1 });
    const last = sut.requests[2];
    expect(last.toolChoice).toBe('none');
    expect(last.messages.slice(-3)).toEqual([
      { role: 'assistant', content: 'Paris' },
      { role: 'user', content: 'Fix: not JSON' },
      { role: 'user', content: finalAnswerInstruction('max_iterations') },
    ]);
  });

  it('should keep the retries it used in its checkpoints, and a resumed loop should not exceed them', async () => {
    const checkpoints: AgentLoopCheckpoint[] = [];
    const first = loop(
      [
        { content: 'Paris' },
        { toolCalls: [{ id: 'call_1', name: 'search', arguments: '{"q":"a"}' }], finishReason: 'tool_calls' },
        { content: '{"city":"Paris"}' },
      ],
      { tools: [search], onCheckpoint: (state) => Promise.resolve(void checkpoints.push(state)) },
    );
    await first.result;
    expect(checkpoints[0].answerRetries).toBe(1);

    const resumed = loop([{ content: '{"town":"Paris"}' }], { tools: [search], resume: checkpoints.at(-1) });

    expect(await resumed.result).toMatchObject({ output: '{"town":"Paris"}', answerRetries: 1 });
    expect(resumed.retries).toEqual([]);
  });
});
