import { anthropic, AnthropicTestServer } from './anthropic-test-server';
import { ollama, OllamaTestServer } from './ollama-test-server';
import { delta, OpenAITestServer, reply, type Turn as ChatTurn } from './openai-test-server';
import { responses, ResponsesTestServer } from './responses-test-server';
import type { RecordedRequest, ScriptTurn } from './scripted-llm-server';

/** A turn of any protocol's test server; each kit only hands its own server the turns it built. */
export type KitTurn = ScriptTurn | ChatTurn;

/** What the tests need of a protocol's test server. */
export interface KitServer {
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  script(turns: KitTurn[]): void;
  reset(): void;
  close(): Promise<void>;
}

interface ScriptableServer<T> {
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  script(turns: T[]): unknown;
  reset(): void;
  close(): Promise<void>;
}

const kitServer = <T extends KitTurn>(server: ScriptableServer<T>): KitServer => ({
  get baseUrl() {
    return server.baseUrl;
  },
  requests: server.requests,
  script: (turns) => void server.script(turns as T[]),
  reset: () => server.reset(),
  close: () => server.close(),
});

export interface KitToolCall {
  id: string;
  name: string;
  /** '' streams no input at all (an empty tool input). */
  input: Record<string, unknown> | '';
}

/** What a tool result looks like on the wire, read back from a recorded request. */
export interface WireToolResult {
  id: string;
  content: string;
}

/**
 * One protocol as the e2e tests drive it: its scripted server, the turns every test needs, and readers
 * of what the app sent back. Each protocol's turns are its real wire format; the tests stay the same.
 */
export interface ProtocolKit {
  protocol: string;
  start(): Promise<KitServer>;
  /** Calls in one answer, after a reasoning block the next request must carry back (signature, encrypted content). */
  toolCalls(calls: KitToolCall[], reasoning?: string): KitTurn;
  /** A text answer reporting `usage`, in the protocol's own figures. */
  text(text: string): KitTurn;
  /** Prompt and completion tokens the run must show for one `text` turn. */
  textUsage: { prompt_tokens: number; completion_tokens: number };
  rateLimited(): KitTurn;
  /** A text answer the API ended at the output token limit (max_tokens, max_output_tokens, length). */
  cutAtLimit(text: string): KitTurn;
  /** Starts streaming, then fails in the stream with this message. */
  failsMidStream(message: string): KitTurn;
  /** The message the node fails with for `failsMidStream(message)`. */
  midStreamFailure(message: string): string;
  /** How a call with an empty input is recorded: `{}`, or the raw '' where the wire carries argument text. */
  emptyInput: string;
  toolResults(request: RecordedRequest): WireToolResult[];
  /** The reasoning the request carries back, in the protocol's own shape. */
  carriedReasoning(request: RecordedRequest): unknown;
  /** What `carriedReasoning` must equal after `toolCalls(calls, reasoning)`. */
  expectedReasoning(reasoning: string): unknown;
}

type Json = Record<string, unknown>;
const records = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);

const signatureOf = (reasoning: string) => `sig-${reasoning.length}`;

export const anthropicKit: ProtocolKit = {
  protocol: 'anthropic',
  start: async () => kitServer(await AnthropicTestServer.start()),
  toolCalls: (calls, reasoning) =>
    anthropic.turn([
      ...(reasoning === undefined ? [] : [{ thinking: reasoning, signature: signatureOf(reasoning) }]),
      ...calls.map((call) => ({ toolUse: call })),
    ]),
  text: (text) =>
    anthropic.text(text, { startUsage: { input_tokens: 30, output_tokens: 1 }, deltaUsage: { output_tokens: 12 } }),
  textUsage: { prompt_tokens: 30, completion_tokens: 12 },
  cutAtLimit: (text) => anthropic.text(text, { stopReason: 'max_tokens' }),
  rateLimited: () => anthropic.error(429, 'rate_limit_error', 'Rate limited', { 'retry-after': '0' }),
  failsMidStream: (message) =>
    anthropic.turn([{ text: 'Let me' }, { text: 'never' }], {
      errorAfterBlocks: { blocks: 1, type: 'overloaded_error', message },
    }),
  midStreamFailure: (message) => `provider stream error: ${message}`,
  emptyInput: '{}',
  toolResults: (request) =>
    records(request.body.messages)
      .flatMap((message) => records(message.content))
      .filter((block) => block.type === 'tool_result')
      .map((block) => ({ id: String(block.tool_use_id), content: String(block.content) })),
  carriedReasoning: (request) =>
    records(request.body.messages)
      .filter((message) => message.role === 'assistant')
      .flatMap((message) => records(message.content))
      .filter((block) => block.type === 'thinking'),
  expectedReasoning: (reasoning) => [{ type: 'thinking', thinking: reasoning, signature: signatureOf(reasoning) }],
};

export const ollamaKit: ProtocolKit = {
  protocol: 'ollama',
  start: async () => kitServer(await OllamaTestServer.start()),
  // Ollama sends no ids: the app names calls call_0, call_1, … in conversation order, so tests use those ids;
  // results go back in call order, which is what Ollama matches them by.
  toolCalls: (calls, reasoning) =>
    ollama.turn({
      thinking: reasoning,
      calls: calls.map((call) => ({ name: call.name, arguments: call.input === '' ? {} : call.input })),
    }),
  text: (text) => ollama.text(text, { promptEvalCount: 30, evalCount: 12 }),
  textUsage: { prompt_tokens: 30, completion_tokens: 12 },
  cutAtLimit: (text) => ollama.text(text, { doneReason: 'length' }),
  rateLimited: () => ollama.error(429, 'server busy, please try again'),
  failsMidStream: (message) => ollama.turn({ content: 'Let me', errorLine: message }),
  midStreamFailure: (message) => `provider stream error: ${message}`,
  emptyInput: '{}',
  toolResults: (request) =>
    records(request.body.messages)
      .filter((message) => message.role === 'tool')
      .map((message, index) => ({ id: `call_${index}`, content: String(message.content) })),
  carriedReasoning: (request) =>
    records(request.body.messages)
      .filter((message) => message.role === 'assistant')
      .map((message) => message.thinking),
  expectedReasoning: (reasoning) => [reasoning],
};

export const responsesKit: ProtocolKit = {
  protocol: 'openai-responses',
  start: async () => kitServer(await ResponsesTestServer.start()),
  toolCalls: (calls, reasoning) =>
    responses.turn([
      ...(reasoning === undefined ? [] : [{ reasoning, id: 'rs_1', encryptedContent: `enc-${reasoning.length}` }]),
      ...calls.map((call, index) => ({
        call: { id: `fc_${index}`, callId: call.id, name: call.name, arguments: call.input },
      })),
    ]),
  text: (text) => responses.text(text, { usage: { input_tokens: 30, output_tokens: 12, total_tokens: 42 } }),
  textUsage: { prompt_tokens: 30, completion_tokens: 12 },
  cutAtLimit: (text) => responses.text(text, { incomplete: 'max_output_tokens' }),
  rateLimited: () => responses.error(429, 'Rate limit reached', { 'retry-after-ms': '0' }),
  failsMidStream: (message) =>
    responses.turn([{ text: 'Let me' }, { text: 'never' }], {
      failAfterItems: { items: 1, event: 'response.failed', message },
    }),
  midStreamFailure: (message) => `provider stream error: ${message}`,
  emptyInput: '{}',
  toolResults: (request) =>
    records(request.body.input)
      .filter((item) => item.type === 'function_call_output')
      .map((item) => ({ id: String(item.call_id), content: String(item.output) })),
  carriedReasoning: (request) => records(request.body.input).filter((item) => item.type === 'reasoning'),
  expectedReasoning: (reasoning) => [
    {
      type: 'reasoning',
      id: 'rs_1',
      summary: [{ type: 'summary_text', text: reasoning }],
      encrypted_content: `enc-${reasoning.length}`,
    },
  ],
};

export const chatCompletionsKit: ProtocolKit = {
  protocol: 'openai-chat',
  start: async () => kitServer(await OpenAITestServer.start()),
  toolCalls: (calls, reasoning) =>
    reply.toolCalls(
      calls.map((call) => ({ id: call.id, name: call.name, arguments: call.input })),
      { reasoning },
    ),
  text: (text) => reply.text(text, { usage: { prompt_tokens: 30, completion_tokens: 12, total_tokens: 42 } }),
  textUsage: { prompt_tokens: 30, completion_tokens: 12 },
  cutAtLimit: (text) => reply.text(text, { finishReason: 'length' }),
  rateLimited: () => reply.error(429, 'Rate limit reached', { headers: { 'retry-after-ms': '0' } }),
  failsMidStream: (message) =>
    reply.chunks([delta({ content: 'Let me' }), { error: { message, type: 'server_error', param: null, code: null } }]),
  midStreamFailure: (message) => `provider stream error: ${message}`,
  emptyInput: '',
  toolResults: (request) =>
    records(request.body.messages)
      .filter((message) => message.role === 'tool')
      .map((message) => ({ id: String(message.tool_call_id), content: String(message.content) })),
  carriedReasoning: (request) =>
    records(request.body.messages)
      .filter((message) => message.role === 'assistant')
      .map((message) => message.reasoning_content),
  expectedReasoning: (reasoning) => [reasoning],
};

/** The four protocols, each with its own test server speaking its real wire format. */
export const PROTOCOL_KITS: ProtocolKit[] = [chatCompletionsKit, anthropicKit, responsesKit, ollamaKit];
