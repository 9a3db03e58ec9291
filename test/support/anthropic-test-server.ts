import { splitText } from './openai-test-server';
import { ScriptedLlmServer, sseEvent, type FramesTurn, type ScriptTurn, type StatusTurn } from './scripted-llm-server';
import { anthropicOutputFormatError } from './structured-output-wire';

/** One content block of a scripted Messages answer, streamed as the API streams it. */
export type AnthropicBlock =
  | { text: string }
  | { thinking: string; signature: string }
  | { redactedThinking: string }
  /** `input` as the JSON text streamed in `input_json_delta` pieces ('' streams no delta at all). */
  | { toolUse: { id: string; name: string; input: string | Record<string, unknown> } };

export interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

export interface AnthropicTurnOptions {
  /** Default `end_turn`, or `tool_use` when a block calls a tool. */
  stopReason?: string;
  /** Usage of `message_start`; default 25 in, 1 out. */
  startUsage?: AnthropicUsage;
  /** Usage of `message_delta` (cumulative, replaces the start's figures); default 15 out. */
  deltaUsage?: AnthropicUsage;
  /** Characters per delta. Default 4. */
  chunkSize?: number;
  /** An `error` event in place of everything after this many blocks. */
  errorAfterBlocks?: { blocks: number; type: string; message: string };
  dropAfterFrames?: number;
}

/**
 * A local Anthropic Messages server (`POST /v1/messages`): streams `message_start`, `content_block_start` /
 * `_delta` / `_stop` (text_delta, input_json_delta, thinking_delta, signature_delta), `ping`,
 * `message_delta` and `message_stop` exactly as the API names and shapes them, and records every request.
 */
export class AnthropicTestServer extends ScriptedLlmServer {
  static async start(): Promise<AnthropicTestServer> {
    const server = new AnthropicTestServer({
      path: '/v1/messages',
      models: {
        path: '/v1/models',
        answer: (ids) => ({
          data: ids.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-05-14T00:00:00Z' })),
          has_more: false,
          first_id: ids[0] ?? null,
          last_id: ids.at(-1) ?? null,
        }),
      },
      contentType: 'text/event-stream; charset=utf-8',
      exhausted: (message) => anthropicError('api_error', `AnthropicTestServer: ${message}`),
      refuse: (request) => {
        const message = anthropicOutputFormatError(request);
        return message === null ? null : anthropicError('invalid_request_error', message);
      },
    });
    await server.listen();
    return server;
  }
}

const anthropicError = (type: string, message: string) => ({ type: 'error', error: { type, message } });

let messageCounter = 0;

export const anthropic = {
  turn(blocks: AnthropicBlock[], options: AnthropicTurnOptions = {}): FramesTurn {
    const size = options.chunkSize ?? 4;
    const calls = blocks.some((block) => 'toolUse' in block);
    const frames = [
      sseEvent('message_start', {
        message: {
          id: `msg_test_${++messageCounter}`,
          type: 'message',
          role: 'assistant',
          content: [],
          model: 'claude-test',
          stop_reason: null,
          stop_sequence: null,
          usage: options.startUsage ?? { input_tokens: 25, output_tokens: 1 },
        },
      }),
    ];
    for (const [index, block] of blocks.entries()) {
      if (options.errorAfterBlocks?.blocks === index) break;
      frames.push(...blockFrames(index, block, size));
      if (index === 0) frames.push(sseEvent('ping', {}));
    }
    const failure = options.errorAfterBlocks;
    if (failure !== undefined && failure.blocks <= blocks.length) {
      frames.push(`event: error\ndata: ${JSON.stringify(anthropicError(failure.type, failure.message))}\n\n`);
      return { kind: 'frames', frames };
    }
    frames.push(
      sseEvent('message_delta', {
        delta: { stop_reason: options.stopReason ?? (calls ? 'tool_use' : 'end_turn'), stop_sequence: null },
        usage: options.deltaUsage ?? { output_tokens: 15 },
      }),
      sseEvent('message_stop', {}),
    );
    return { kind: 'frames', frames, dropAfterFrames: options.dropAfterFrames };
  },

  text(text: string, options: AnthropicTurnOptions = {}): FramesTurn {
    return anthropic.turn([{ text }], options);
  },

  /** An HTTP error in the API's shape, e.g. 429 `rate_limit_error` or 529 `overloaded_error`. */
  error(status: number, type: string, message: string, headers: Record<string, string> = {}): StatusTurn {
    return { kind: 'status', status, body: anthropicError(type, message), headers };
  },

  choose(choose: (request: import('./scripted-llm-server').RecordedRequest) => ScriptTurn): ScriptTurn {
    return { kind: 'choose', choose };
  },
};

function blockFrames(index: number, block: AnthropicBlock, size: number): string[] {
  const delta = (value: Record<string, unknown>) => sseEvent('content_block_delta', { index, delta: value });
  const start = (contentBlock: Record<string, unknown>) =>
    sseEvent('content_block_start', { index, content_block: contentBlock });
  const stop = sseEvent('content_block_stop', { index });
  if ('text' in block) {
    return [
      start({ type: 'text', text: '' }),
      ...splitText(block.text, size).map((text) => delta({ type: 'text_delta', text })),
      stop,
    ];
  }
  if ('thinking' in block) {
    return [
      start({ type: 'thinking', thinking: '', signature: '' }),
      ...splitText(block.thinking, size).map((thinking) => delta({ type: 'thinking_delta', thinking })),
      delta({ type: 'signature_delta', signature: block.signature }),
      stop,
    ];
  }
  if ('redactedThinking' in block) return [start({ type: 'redacted_thinking', data: block.redactedThinking }), stop];
  const { id, name, input } = block.toolUse;
  const json = typeof input === 'string' ? input : JSON.stringify(input);
  return [
    start({ type: 'tool_use', id, name, input: {} }),
    ...(json === ''
      ? []
      : splitText(json, size).map((partial) => delta({ type: 'input_json_delta', partial_json: partial }))),
    stop,
  ];
}
