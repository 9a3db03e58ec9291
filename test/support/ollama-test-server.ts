import { ollamaEmbed } from './embeddings-endpoint';
import { splitText } from './openai-test-server';
import { ScriptedLlmServer, type FramesTurn, type StatusTurn } from './scripted-llm-server';
import { ollamaFormatError } from './structured-output-wire';

export interface OllamaScriptedCall {
  name: string;
  arguments: Record<string, unknown>;
  /** Newer servers send ids, older ones none. */
  id?: string;
}

export interface OllamaTurnOptions {
  thinking?: string;
  content?: string;
  calls?: OllamaScriptedCall[];
  /** Default 12 and 6. */
  promptEvalCount?: number;
  evalCount?: number;
  doneReason?: string;
  /** An `{"error": …}` line after the thinking and content, in place of the rest. */
  errorLine?: string;
  /** Cut the connection after this many lines. */
  dropAfterLines?: number;
}

/**
 * A local Ollama server (`POST /api/chat`): streams NDJSON lines exactly as Ollama writes them (message
 * pieces with `content` and `thinking`, tool calls whole with object arguments, a final `done: true` line
 * with `prompt_eval_count`/`eval_count`), `{"error": …}` lines and error statuses, and records requests.
 * `POST /api/embed` answers with `embedWith`'s vectors.
 */
export class OllamaTestServer extends ScriptedLlmServer {
  static async start(): Promise<OllamaTestServer> {
    const server = new OllamaTestServer({
      path: '/api/chat',
      models: {
        path: '/api/tags',
        answer: (ids) => ({
          models: ids.map((name) => ({
            name,
            model: name,
            modified_at: '2026-11-01T00:00:00Z',
            size: 4_000_000_000,
            digest: 'sha256:0',
            details: { format: 'gguf', family: 'llama', parameter_size: '8B', quantization_level: 'Q4_K_M' },
          })),
        }),
      },
      contentType: 'application/x-ndjson',
      exhausted: (message) => ({ error: `OllamaTestServer: ${message}` }),
      refuse: (request) => {
        const message = ollamaFormatError(request);
        return message === null ? null : { error: message };
      },
      embeddings: { path: '/api/embed', answer: ollamaEmbed },
    });
    await server.listen();
    return server;
  }
}

const line = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ model: 'test-model', created_at: new Date(0).toISOString(), message: { role: 'assistant', content: '', ...message }, done: false, ...extra })}\n`;

export const ollama = {
  turn(options: OllamaTurnOptions): FramesTurn {
    const frames = [
      ...splitText(options.thinking ?? '', 5).map((thinking) => line({ thinking })),
      ...splitText(options.content ?? '', 4).map((content) => line({ content })),
    ];
    if (options.errorLine !== undefined) {
      frames.push(`${JSON.stringify({ error: options.errorLine })}\n`);
      return { kind: 'frames', frames };
    }
    if ((options.calls ?? []).length > 0) {
      frames.push(
        line({
          tool_calls: (options.calls ?? []).map((call) => ({
            ...(call.id === undefined ? {} : { id: call.id }),
            function: { name: call.name, arguments: call.arguments },
          })),
        }),
      );
    }
    frames.push(
      line(
        {},
        {
          done: true,
          done_reason: options.doneReason ?? 'stop',
          total_duration: 1000,
          load_duration: 10,
          prompt_eval_count: options.promptEvalCount ?? 12,
          prompt_eval_duration: 100,
          eval_count: options.evalCount ?? 6,
          eval_duration: 200,
        },
      ),
    );
    return { kind: 'frames', frames, dropAfterFrames: options.dropAfterLines };
  },

  text(content: string, options: Omit<OllamaTurnOptions, 'content'> = {}): FramesTurn {
    return ollama.turn({ ...options, content });
  },

  /** An error status with Ollama's `{"error": "…"}` body. */
  error(status: number, message: string): StatusTurn {
    return { kind: 'status', status, body: { error: message } };
  },
};
