import { anthropic, AnthropicTestServer } from './anthropic-test-server';
import { ollama, OllamaTestServer } from './ollama-test-server';
import type { RecordedRequest, ScriptedLlmServer, ScriptTurn } from './scripted-llm-server';

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
  start(): Promise<ScriptedLlmServer>;
  /** Calls in one answer, after a reasoning block the next request must carry back (signature, encrypted content). */
  toolCalls(calls: KitToolCall[], reasoning?: string): ScriptTurn;
  /** A text answer reporting `usage`, in the protocol's own figures. */
  text(text: string): ScriptTurn;
  /** Prompt and completion tokens the run must show for one `text` turn. */
  textUsage: { prompt_tokens: number; completion_tokens: number };
  rateLimited(): ScriptTurn;
  /** Starts streaming, then fails in the stream with this message. */
  failsMidStream(message: string): ScriptTurn;
  /** The message the node fails with for `failsMidStream(message)`. */
  midStreamFailure(message: string): string;
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
  start: () => AnthropicTestServer.start(),
  toolCalls: (calls, reasoning) =>
    anthropic.turn([
      ...(reasoning === undefined ? [] : [{ thinking: reasoning, signature: signatureOf(reasoning) }]),
      ...calls.map((call) => ({ toolUse: call })),
    ]),
  text: (text) =>
    anthropic.text(text, { startUsage: { input_tokens: 30, output_tokens: 1 }, deltaUsage: { output_tokens: 12 } }),
  textUsage: { prompt_tokens: 30, completion_tokens: 12 },
  rateLimited: () => anthropic.error(429, 'rate_limit_error', 'Rate limited', { 'retry-after': '0' }),
  failsMidStream: (message) =>
    anthropic.turn([{ text: 'Let me' }, { text: 'never' }], {
      errorAfterBlocks: { blocks: 1, type: 'overloaded_error', message },
    }),
  midStreamFailure: (message) => `provider stream error: ${message}`,
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
  start: () => OllamaTestServer.start(),
  // Ollama sends no ids: the app names calls call_0, call_1, … in conversation order, so tests use those ids;
  // results go back in call order, which is what Ollama matches them by.
  toolCalls: (calls, reasoning) =>
    ollama.turn({
      thinking: reasoning,
      calls: calls.map((call) => ({ name: call.name, arguments: call.input === '' ? {} : call.input })),
    }),
  text: (text) => ollama.text(text, { promptEvalCount: 30, evalCount: 12 }),
  textUsage: { prompt_tokens: 30, completion_tokens: 12 },
  rateLimited: () => ollama.error(429, 'server busy, please try again'),
  failsMidStream: (message) => ollama.turn({ content: 'Let me', errorLine: message }),
  midStreamFailure: (message) => `provider stream error: ${message}`,
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

/** Every protocol but Chat Completions (whose own e2e suites predate this list). */
export const PROTOCOL_KITS: ProtocolKit[] = [anthropicKit, ollamaKit];
