import { openaiModelList, splitText } from './openai-test-server';
import { ScriptedLlmServer, type FramesTurn, type StatusTurn } from './scripted-llm-server';
import { responsesTextFormatError } from './structured-output-wire';

export type ResponsesItem =
  | { text: string }
  /** A reasoning item: its summary streamed, its encrypted content in `output_item.done`. */
  | { reasoning: string; id: string; encryptedContent: string }
  /** `arguments` '' streams no delta and an empty `.done`. */
  | { call: { id: string; callId: string; name: string; arguments: string | Record<string, unknown> } };

export interface ResponsesUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
}

export interface ResponsesTurnOptions {
  usage?: ResponsesUsage;
  /** `response.incomplete` with this reason instead of `response.completed`. */
  incomplete?: 'max_output_tokens' | 'content_filter';
  /** After this many items: `response.failed` with the message, or an `error` event. */
  failAfterItems?: { items: number; event: 'response.failed' | 'error'; message: string };
  dropAfterFrames?: number;
}

/**
 * A local OpenAI Responses server (`POST /v1/responses`): streams `response.created`, `output_item.added`/
 * `.done`, `output_text.delta`, `function_call_arguments.delta`/`.done`, reasoning summaries and items with
 * `encrypted_content`, `response.completed` with usage, `response.failed` and `error`, named and shaped as
 * the API sends them (with `sequence_number`), and records requests.
 */
export class ResponsesTestServer extends ScriptedLlmServer {
  static async start(): Promise<ResponsesTestServer> {
    const server = new ResponsesTestServer({
      path: '/v1/responses',
      models: { path: '/v1/models', answer: openaiModelList },
      basePath: '/v1',
      contentType: 'text/event-stream; charset=utf-8',
      exhausted: (message) => ({
        error: { message: `ResponsesTestServer: ${message}`, type: 'server_error', param: null, code: null },
      }),
      refuse: (request) => {
        const message = responsesTextFormatError(request);
        return message === null
          ? null
          : { error: { message, type: 'invalid_request_error', param: 'text', code: null } };
      },
    });
    await server.listen();
    return server;
  }
}

let responseCounter = 0;

export const responses = {
  turn(items: ResponsesItem[], options: ResponsesTurnOptions = {}): FramesTurn {
    const id = `resp_test_${++responseCounter}`;
    let sequence = 0;
    const frames: string[] = [];
    const emit = (type: string, data: Record<string, unknown>) =>
      frames.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
    const response = (status: string, extra: Record<string, unknown> = {}) => ({
      id,
      object: 'response',
      created_at: 1,
      status,
      model: 'test-model',
      output: [],
      error: null,
      incomplete_details: null,
      usage: null,
      ...extra,
    });
    emit('response.created', { response: response('in_progress') });
    emit('response.in_progress', { response: response('in_progress') });
    const output: Record<string, unknown>[] = [];
    for (const [index, item] of items.entries()) {
      if (options.failAfterItems?.items === index) break;
      output.push(itemFrames(index, item, emit));
    }
    const failure = options.failAfterItems;
    if (failure !== undefined && failure.items <= items.length) {
      if (failure.event === 'error') emit('error', { code: 'server_error', message: failure.message, param: null });
      else
        emit('response.failed', {
          response: response('failed', { error: { code: 'server_error', message: failure.message } }),
        });
      return { kind: 'frames', frames };
    }
    const usage = options.usage ?? { input_tokens: 20, output_tokens: 8, total_tokens: 28 };
    const detailed = {
      ...usage,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    };
    if (options.incomplete !== undefined) {
      emit('response.incomplete', {
        response: response('incomplete', {
          output,
          usage: detailed,
          incomplete_details: { reason: options.incomplete },
        }),
      });
    } else {
      emit('response.completed', { response: response('completed', { output, usage: detailed }) });
    }
    return { kind: 'frames', frames, dropAfterFrames: options.dropAfterFrames };
  },

  text(text: string, options: ResponsesTurnOptions = {}): FramesTurn {
    return responses.turn([{ text }], options);
  },

  /** An HTTP error with OpenAI's error body. */
  error(status: number, message: string, headers: Record<string, string> = {}): StatusTurn {
    const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
    return { kind: 'status', status, body: { error: { message, type, param: null, code: null } }, headers };
  },
};

function itemFrames(
  outputIndex: number,
  item: ResponsesItem,
  emit: (type: string, data: Record<string, unknown>) => void,
): Record<string, unknown> {
  if ('text' in item) {
    const itemId = `msg_${outputIndex}`;
    const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
    emit('response.output_item.added', {
      output_index: outputIndex,
      item: { id: itemId, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
    });
    emit('response.content_part.added', { item_id: itemId, output_index: outputIndex, content_index: 0, part });
    for (const delta of splitText(item.text, 4)) {
      emit('response.output_text.delta', {
        item_id: itemId,
        output_index: outputIndex,
        content_index: 0,
        delta,
        logprobs: [],
      });
    }
    const whole = { ...part, text: item.text };
    emit('response.output_text.done', {
      item_id: itemId,
      output_index: outputIndex,
      content_index: 0,
      text: item.text,
      logprobs: [],
    });
    emit('response.content_part.done', { item_id: itemId, output_index: outputIndex, content_index: 0, part: whole });
    const done = { id: itemId, type: 'message', status: 'completed', role: 'assistant', content: [whole] };
    emit('response.output_item.done', { output_index: outputIndex, item: done });
    return done;
  }
  if ('reasoning' in item) {
    emit('response.output_item.added', {
      output_index: outputIndex,
      item: { id: item.id, type: 'reasoning', summary: [] },
    });
    const part = { type: 'summary_text', text: '' };
    emit('response.reasoning_summary_part.added', {
      item_id: item.id,
      output_index: outputIndex,
      summary_index: 0,
      part,
    });
    for (const delta of splitText(item.reasoning, 5)) {
      emit('response.reasoning_summary_text.delta', {
        item_id: item.id,
        output_index: outputIndex,
        summary_index: 0,
        delta,
      });
    }
    emit('response.reasoning_summary_text.done', {
      item_id: item.id,
      output_index: outputIndex,
      summary_index: 0,
      text: item.reasoning,
    });
    emit('response.reasoning_summary_part.done', {
      item_id: item.id,
      output_index: outputIndex,
      summary_index: 0,
      part: { ...part, text: item.reasoning },
    });
    const done = {
      id: item.id,
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: item.reasoning }],
      encrypted_content: item.encryptedContent,
    };
    emit('response.output_item.done', { output_index: outputIndex, item: done });
    return done;
  }
  const { id, callId, name } = item.call;
  const args = typeof item.call.arguments === 'string' ? item.call.arguments : JSON.stringify(item.call.arguments);
  emit('response.output_item.added', {
    output_index: outputIndex,
    item: { id, type: 'function_call', status: 'in_progress', arguments: '', call_id: callId, name },
  });
  for (const delta of splitText(args, 3)) {
    emit('response.function_call_arguments.delta', { item_id: id, output_index: outputIndex, delta });
  }
  emit('response.function_call_arguments.done', { item_id: id, output_index: outputIndex, arguments: args });
  const done = { id, type: 'function_call', status: 'completed', arguments: args, call_id: callId, name };
  emit('response.output_item.done', { output_index: outputIndex, item: done });
  return done;
}
