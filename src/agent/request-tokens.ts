import { countTokens } from '../llm/token-count';
import type { ChatMessage } from '../shared/chat-types';
import type { FunctionTool } from '../shared/tool-types';

/** Role and separators of one message, which the text alone does not show. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/**
 * Counts the tokens of a request (messages and offered tools) with gpt-tokenizer (o200k_base). Counts and bounds
 * are remembered per message and tool object, so a loop does not count its history again on every call.
 */
export class RequestTokenCounter {
  private readonly counted = new WeakMap<object, number>();
  private readonly bounds = new WeakMap<object, number>();

  /**
   * At least the request's tokens, without encoding: a token stands for one byte of UTF-8 or more. Far from a
   * limit (the common case) this settles that the request is within it, and nothing is counted.
   */
  upperBound(messages: readonly ChatMessage[], tools: readonly FunctionTool[]): number {
    const boundOf = (key: object, text: () => string): number => {
      let bound = this.bounds.get(key);
      if (bound === undefined) {
        bound = Buffer.byteLength(text());
        this.bounds.set(key, bound);
      }
      return bound;
    };
    let total = 0;
    for (const tool of tools) total += boundOf(tool, () => JSON.stringify(tool));
    for (const message of messages) {
      total +=
        MESSAGE_OVERHEAD_TOKENS +
        boundOf(message, () => {
          const { content, ...rest } = message;
          return `${content ?? ''}${JSON.stringify(rest)}`;
        });
    }
    return total;
  }

  /** The request's tokens: its tools plus its messages. */
  count(messages: readonly ChatMessage[], tools: readonly FunctionTool[]): number {
    return this.toolTokens(tools) + messages.reduce((sum, message) => sum + this.messageTokens(message), 0);
  }

  toolTokens(tools: readonly FunctionTool[]): number {
    return tools.reduce((sum, tool) => sum + this.tokensOf(tool, () => JSON.stringify(tool)), 0);
  }

  messageTokens(message: ChatMessage): number {
    return this.tokensOf(message, () => {
      const { content, ...rest } = message;
      return { content: content ?? '', rest: JSON.stringify(rest) };
    });
  }

  private tokensOf(key: object, text: () => string | { content: string; rest: string }): number {
    let tokens = this.counted.get(key);
    if (tokens === undefined) {
      const value = text();
      tokens =
        typeof value === 'string'
          ? countTokens(value)
          : MESSAGE_OVERHEAD_TOKENS + countTokens(value.content) + countTokens(value.rest);
      this.counted.set(key, tokens);
    }
    return tokens;
  }
}
