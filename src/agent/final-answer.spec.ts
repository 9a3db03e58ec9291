import { chatResponse } from '../../test/factories/chat-response.factory';
import type { ChatMessage } from '../shared/chat-types';
import type { ChatRequest, ChatResponse } from '../llm/provider';
import type { FunctionTool } from '../shared/tool-types';
import { fallbackAnswer, finalAnswerInstruction, requestFinalAnswer } from './final-answer';

const response = chatResponse;

const tools: FunctionTool[] = [{ type: 'function', function: { name: 'search', parameters: { type: 'object' } } }];
const history: ChatMessage[] = [{ role: 'user', content: 'Find it' }];

const setup = (answer: ChatResponse) => {
  const requests: ChatRequest[] = [];
  const callModel = (request: ChatRequest) => {
    requests.push(request);
    return Promise.resolve(answer);
  };
  return { requests, callModel };
};

describe(requestFinalAnswer.name, () => {
  it('should send the tools with tool choice none and an instruction naming the limit', async () => {
    const { requests, callModel } = setup(response({ content: 'Done.' }));
    await requestFinalAnswer({ reason: 'max_iterations', history, tools, base: { model: 'm' }, callModel });
    expect(requests).toEqual([
      {
        model: 'm',
        tools,
        toolChoice: 'none',
        messages: [...history, { role: 'user', content: finalAnswerInstruction('max_iterations') }],
      },
    ]);
  });

  it('should omit tools and tool choice when the loop has no tools', async () => {
    const { requests, callModel } = setup(response({ content: 'Done.' }));
    await requestFinalAnswer({ reason: 'budget_tokens', history, tools: [], base: { model: 'm' }, callModel });
    expect(requests[0]).not.toHaveProperty('tools');
    expect(requests[0]).not.toHaveProperty('toolChoice');
  });

  it('should return the text and ignore tool calls the model still made', async () => {
    const call = { id: 'c1', name: 'search', arguments: '{}' };
    const { callModel } = setup(response({ content: 'Partial answer.', toolCalls: [call] }));
    const sut = await requestFinalAnswer({ reason: 'repetition', history, tools, base: { model: 'm' }, callModel });
    expect(sut.output).toBe('Partial answer.');
    expect(sut.appended).toEqual([
      { role: 'user', content: finalAnswerInstruction('repetition') },
      { role: 'assistant', content: 'Partial answer.' },
    ]);
  });

  it('should fall back to an explanation when the model wrote no text', async () => {
    const { callModel } = setup(response({ content: '  ' }));
    const sut = await requestFinalAnswer({
      reason: 'budget_tool_calls',
      history,
      tools,
      base: { model: 'm' },
      callModel,
    });
    expect(sut.output).toBe(fallbackAnswer('budget_tool_calls'));
    expect(sut.output).toContain('tool call budget');
    expect(sut.appended).toEqual([{ role: 'user', content: finalAnswerInstruction('budget_tool_calls') }]);
  });
});
