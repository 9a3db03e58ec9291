import type { ChatRequest as OllamaChatRequest, ChatResponse as OllamaChatResponse, Message } from 'ollama';
import type { ChatMessage } from '../shared/chat-types';
import { isRecord } from '../shared/is-record';
import type { ChatRequest } from './provider';
import type { StreamChunk } from './stream-chunk';
import { parseJsonWithin } from '../shared/json-depth';

export type OllamaChatBody = OllamaChatRequest & { stream: true };

/** The internal request as an `/api/chat` body. Ollama knows no tool_choice: `none` sends no tools. */
export function toOllamaBody(request: ChatRequest): OllamaChatBody {
  const sendTools = request.tools !== undefined && request.tools.length > 0 && request.toolChoice !== 'none';
  const options = {
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.maxTokens === undefined ? {} : { num_predict: request.maxTokens }),
  };
  return {
    model: request.model,
    messages: toOllamaMessages(request.messages),
    stream: true,
    ...(sendTools
      ? {
          tools: (request.tools ?? []).map((tool) => ({
            type: 'function',
            function: {
              name: tool.function.name,
              description: tool.function.description,
              parameters: tool.function.parameters as never,
            },
          })),
        }
      : {}),
    ...(request.reasoningEffort === undefined ? {} : { think: request.reasoningEffort }),
    ...(request.responseFormat === undefined ? {} : { format: request.responseFormat.schema }),
    ...(Object.keys(options).length > 0 ? { options } : {}),
  };
}

/**
 * Tool results go back as `role: "tool"` messages naming their tool (Ollama matches them by name and
 * order, not id), after the assistant message that carries the calls with object arguments and its thinking.
 */
export function toOllamaMessages(messages: readonly ChatMessage[]): Message[] {
  const names = new Map<string, string>();
  return messages.map((message): Message => {
    switch (message.role) {
      case 'system':
      case 'user':
        return { role: message.role, content: message.content };
      case 'assistant':
        for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name);
        return {
          role: 'assistant',
          content: message.content ?? '',
          ...(message.reasoning_content === undefined ? {} : { thinking: message.reasoning_content }),
          ...(message.tool_calls === undefined
            ? {}
            : {
                tool_calls: message.tool_calls.map((call) => ({
                  function: { name: call.function.name, arguments: toArguments(call.function.arguments) },
                })),
              }),
        };
      case 'tool':
        return { role: 'tool', content: message.content, tool_name: names.get(message.tool_call_id) ?? '' };
    }
  });
}

function toArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = parseJsonWithin(text);
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}

/**
 * Reads the NDJSON lines of one answer. Calls arrive whole, arguments already an object, with or without
 * an id (the answer's tool-call stream gives the missing ones stable `call_<n>` ids); the `done` line
 * carries the finish reason and the token counts.
 */
export class OllamaStreamReader {
  done = false;
  private calls = 0;

  read(line: OllamaChatResponse): StreamChunk {
    const chunk: StreamChunk = { content: '', reasoning: '', toolCalls: [], finishReason: null, usage: null };
    const message: Partial<Message> = isRecord(line.message) ? line.message : {};
    chunk.content = typeof message.content === 'string' ? message.content : '';
    chunk.reasoning = typeof message.thinking === 'string' ? message.thinking : '';
    for (const call of message.tool_calls ?? []) {
      const id: unknown = (call as { id?: unknown }).id;
      const args: unknown = call.function.arguments;
      chunk.toolCalls.push({
        index: this.calls++,
        ...(typeof id === 'string' && id !== '' ? { id } : {}),
        function: { name: call.function.name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) },
      });
    }
    if (line.done) {
      this.done = true;
      chunk.finishReason = this.calls > 0 ? 'tool_calls' : line.done_reason || 'stop';
      const promptTokens = line.prompt_eval_count ?? 0;
      const completionTokens = line.eval_count ?? 0;
      chunk.usage = { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
    }
    return chunk;
  }
}
