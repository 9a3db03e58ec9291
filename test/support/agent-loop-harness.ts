import { scriptedProvider, type ScriptStep } from '../factories/scripted-provider.factory';
import type { ChatMessage } from '../../src/shared/chat-types';
import type { ChatCallOptions, ChatRequest, ChatResponse } from '../../src/llm/provider';
import type { ToolDefinition } from '../../src/shared/tool-definition';
import type { ToolCall, ToolEffect } from '../../src/shared/tool-types';
import type { AgentLoopOptions, ExecuteTool, LoopToolOutcome } from '../../src/agent/agent-loop-options';
import { runAgentLoop } from '../../src/agent/agent-loop';

/** Shared set-up of the runAgentLoop specs: a tool factory, a fake runTool, a scripted run and message checks. */
let callCounter = 0;
export const call = (name: string, args: Record<string, unknown> | string = {}): ToolCall => ({
  id: `call_${++callCounter}`,
  name,
  arguments: typeof args === 'string' ? args : JSON.stringify(args),
});

/** Steps in which the model makes the given calls, one per response. */
export const oneCallEach = (calls: ToolCall[]): ScriptStep[] => calls.map((toolCall) => ({ toolCalls: [toolCall] }));

export const tool = (
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
export const fakeExecuteTool =
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

export const startMessages: ChatMessage[] = [
  { role: 'system', content: 'You are helpful.' },
  { role: 'user', content: 'What is the weather in Oslo?' },
];

export const setup = (
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
export const expectEveryToolCallAnswered = (messages: readonly ChatMessage[]): void => {
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

export const toolMessages = (request: ChatRequest) => request.messages.filter((message) => message.role === 'tool');

export const deferred = () => {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
};

export const hangUntilAborted = (_request: ChatRequest, options?: ChatCallOptions): Promise<ChatResponse> =>
  new Promise((_resolve, reject) => {
    options?.signal?.addEventListener('abort', () => reject(new Error('aborted by signal')));
  });
