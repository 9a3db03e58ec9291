import type {
  AssistantMessageParam,
  ContentBlockParam,
  MessageCreateParamsStreaming,
  UserMessageParam,
  RawMessageStreamEvent,
  ToolChoice as AnthropicToolChoice,
} from '@anthropic-ai/sdk/resources/messages';
import { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema';
import type { ChatMessage, ReasoningPart, TokenUsage } from '../shared/chat-types';
import type { JsonSchema } from '../shared/tool-types';
import { isRecord } from '../shared/is-record';
import type { ChatRequest, ReasoningEffort, ToolChoice } from './provider';
import type { StreamChunk } from './stream-chunk';
import { parseJsonWithin } from '../shared/json-depth';

export const ANTHROPIC_PROTOCOL = 'anthropic';
/** The API requires `max_tokens`; this is sent when a node sets none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;
/** Thinking budget per effort; added on top of `max_tokens`, which must exceed it. */
export const ANTHROPIC_THINKING_BUDGETS: Readonly<Record<ReasoningEffort, number>> = {
  low: 1024,
  medium: 4096,
  high: 16384,
};

/** The `max_tokens` a request is sent with: the node's (or the default) plus the thinking budget. */
export function anthropicMaxTokens({ maxTokens, reasoningEffort }: Pick<ChatRequest, 'maxTokens' | 'reasoningEffort'>) {
  const budget = reasoningEffort === undefined ? 0 : ANTHROPIC_THINKING_BUDGETS[reasoningEffort];
  return (maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS) + budget;
}

/** Node finish reasons (Chat Completions' words) for Anthropic's stop reasons. */
const FINISH_REASONS: Readonly<Record<string, string>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  refusal: 'content_filter',
  pause_turn: 'pause_turn',
};

/** The internal request as a Messages API body. */
export function toAnthropicBody(request: ChatRequest): MessageCreateParamsStreaming {
  const system = request.messages
    .filter((message) => message.role === 'system')
    .map((message) => message.content)
    .join('\n\n');
  const hasTools = request.tools !== undefined && request.tools.length > 0;
  const budget = request.reasoningEffort === undefined ? null : ANTHROPIC_THINKING_BUDGETS[request.reasoningEffort];
  return {
    model: request.model,
    max_tokens: anthropicMaxTokens(request),
    stream: true,
    ...(system === '' ? {} : { system }),
    messages: toAnthropicMessages(request.messages),
    ...(hasTools
      ? {
          tools: (request.tools ?? []).map((tool) => ({
            name: tool.function.name,
            ...(tool.function.description === undefined ? {} : { description: tool.function.description }),
            input_schema: tool.function.parameters as { type: 'object' },
          })),
        }
      : {}),
    ...(hasTools && (request.toolChoice !== undefined || request.parallelToolCalls === false)
      ? { tool_choice: toToolChoice(request.toolChoice ?? 'auto', request.parallelToolCalls) }
      : {}),
    // Extended thinking accepts no temperature but the default.
    ...(budget === null && request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(budget === null ? {} : { thinking: { type: 'enabled', budget_tokens: budget } }),
    ...(request.responseFormat === undefined
      ? {}
      : {
          output_config: { format: { type: 'json_schema', schema: toAnthropicSchema(request.responseFormat.schema) } },
        }),
  };
}

/**
 * The schema as Anthropic's structured outputs take it, through the SDK's own transform: every object closed
 * (`additionalProperties: false`), constraints the API does not enforce (minimum, maxLength, …) moved into the
 * description. The answer is still validated against the node's own schema. A schema the transform cannot
 * read (no `type`) goes as written, and the API's 400 names what it refuses.
 */
function toAnthropicSchema(schema: JsonSchema): JsonSchema {
  try {
    return transformJSONSchema(schema);
  } catch {
    return schema;
  }
}

function toToolChoice(choice: ToolChoice, parallel: boolean | undefined): AnthropicToolChoice {
  const noParallel = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === 'none') return { type: 'none' };
  if (choice === 'auto') return { type: 'auto', ...noParallel };
  if (choice === 'required') return { type: 'any', ...noParallel };
  return { type: 'tool', name: choice.name, ...noParallel };
}

type AnthropicTurn = (UserMessageParam | AssistantMessageParam) & { content: ContentBlockParam[] };

/**
 * The conversation as alternating turns: tool results (and any user text right after them) become one
 * user message of `tool_result` blocks; an assistant turn starts with its thinking blocks, signatures
 * unchanged, since the API checks them before it accepts the tool results that follow.
 */
export function toAnthropicMessages(messages: readonly ChatMessage[]): AnthropicTurn[] {
  const result: AnthropicTurn[] = [];
  const append = (role: AnthropicTurn['role'], blocks: ContentBlockParam[]) => {
    const last = result.at(-1);
    if (last !== undefined && last.role === role) last.content.push(...blocks);
    else result.push({ role, content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        break;
      case 'user':
        append('user', [{ type: 'text', text: message.content }]);
        break;
      case 'tool':
        append('user', [
          {
            type: 'tool_result',
            tool_use_id: message.tool_call_id,
            content: message.content,
            ...(message.is_error === true ? { is_error: true } : {}),
          },
        ]);
        break;
      case 'assistant': {
        const blocks: ContentBlockParam[] = (message.reasoning_parts ?? []).flatMap(toThinkingBlock);
        if (message.content !== null && message.content !== '') blocks.push({ type: 'text', text: message.content });
        for (const call of message.tool_calls ?? []) {
          blocks.push({
            type: 'tool_use',
            id: call.id,
            name: call.function.name,
            input: toInput(call.function.arguments),
          });
        }
        if (blocks.length > 0) append('assistant', blocks);
        break;
      }
    }
  }
  return result;
}

function toThinkingBlock(part: ReasoningPart): ContentBlockParam[] {
  if (part.protocol !== ANTHROPIC_PROTOCOL || part.data === undefined) return [];
  if (part.data.type === 'redacted_thinking') return [{ type: 'redacted_thinking', data: part.data.data ?? '' }];
  return [{ type: 'thinking', thinking: part.text, signature: part.data.signature ?? '' }];
}

/** The API wants an object; arguments a model wrote as broken JSON go back as an empty one. */
function toInput(args: string): Record<string, unknown> {
  try {
    const value: unknown = parseJsonWithin(args);
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}

interface OpenBlock {
  type: string;
  text: string;
  signature: string;
  arguments: string;
}

const emptyChunk = (): StreamChunk => ({ content: '', reasoning: '', toolCalls: [], finishReason: null, usage: null });

/**
 * Reads one Messages stream event by event. Tool inputs are assembled from `input_json_delta` pieces
 * (none at all means `{}`); a finished thinking block becomes a reasoning part with its signature.
 * Usage: `message_delta`'s figures replace `message_start`'s, they are not added.
 */
export class AnthropicStreamReader {
  readonly reasoningParts: ReasoningPart[] = [];
  done = false;
  private readonly blocks = new Map<number, OpenBlock>();
  private usage = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

  read(event: RawMessageStreamEvent): StreamChunk {
    const chunk = emptyChunk();
    switch (event.type) {
      case 'message_start':
        this.updateUsage(event.message.usage);
        chunk.usage = this.tokenUsage();
        break;
      case 'content_block_start': {
        const block = event.content_block;
        const open: OpenBlock = { type: block.type, text: '', signature: '', arguments: '' };
        this.blocks.set(event.index, open);
        if (block.type === 'text' && block.text !== '') chunk.content = block.text;
        if (block.type === 'tool_use') {
          chunk.toolCalls.push({ index: event.index, id: block.id, function: { name: block.name, arguments: '' } });
        }
        if (block.type === 'redacted_thinking') {
          this.reasoningParts.push({
            protocol: ANTHROPIC_PROTOCOL,
            text: '',
            data: { type: 'redacted_thinking', data: block.data },
          });
        }
        break;
      }
      case 'content_block_delta': {
        const open = this.blocks.get(event.index);
        const delta = event.delta;
        if (delta.type === 'text_delta') chunk.content = delta.text;
        else if (delta.type === 'thinking_delta') {
          chunk.reasoning = delta.thinking;
          if (open) open.text += delta.thinking;
        } else if (delta.type === 'signature_delta') {
          if (open) open.signature += delta.signature;
        } else if (delta.type === 'input_json_delta') {
          if (open) open.arguments += delta.partial_json;
          chunk.toolCalls.push({ index: event.index, function: { arguments: delta.partial_json } });
        }
        break;
      }
      case 'content_block_stop': {
        const open = this.blocks.get(event.index);
        if (open?.type === 'tool_use' && open.arguments === '') {
          chunk.toolCalls.push({ index: event.index, function: { arguments: '{}' } });
        }
        if (open?.type === 'thinking') {
          this.reasoningParts.push({
            protocol: ANTHROPIC_PROTOCOL,
            text: open.text,
            data: { type: 'thinking', signature: open.signature },
          });
        }
        break;
      }
      case 'message_delta':
        this.updateUsage(event.usage);
        chunk.usage = this.tokenUsage();
        if (event.delta.stop_reason !== null) {
          chunk.finishReason = FINISH_REASONS[event.delta.stop_reason] ?? event.delta.stop_reason;
        }
        break;
      case 'message_stop':
        this.done = true;
        break;
    }
    return chunk;
  }

  private updateUsage(usage: unknown): void {
    if (!isRecord(usage)) return;
    for (const key of Object.keys(this.usage) as Array<keyof typeof this.usage>) {
      const value = usage[key];
      if (typeof value === 'number' && Number.isFinite(value)) this.usage[key] = value;
    }
  }

  /** Prompt tokens count the cached ones too: the API reports them apart from `input_tokens`. */
  private tokenUsage(): TokenUsage {
    const { input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens } = this.usage;
    const promptTokens = input_tokens + cache_creation_input_tokens + cache_read_input_tokens;
    return {
      promptTokens,
      completionTokens: output_tokens,
      totalTokens: promptTokens + output_tokens,
      ...(cache_read_input_tokens > 0 ? { cachedPromptTokens: cache_read_input_tokens } : {}),
    };
  }
}
