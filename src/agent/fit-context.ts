import { countTokens } from '../llm/token-count';
import type { ChatMessage } from '../shared/chat-types';
import type { FunctionTool } from '../shared/tool-types';
import { CUT_NOTE_START, cutToolResult } from './cut-tool-result';
import { MESSAGE_OVERHEAD_TOKENS, RequestTokenCounter } from './request-tokens';

/** Tokens an older tool result keeps once the request has to shrink. */
export const SHORT_RESULT_TOKENS = 300;
/** Output tokens kept free when the node sets no `max_tokens`: at most this, at most a quarter of the window. */
export const DEFAULT_RESERVED_OUTPUT_TOKENS = 4096;

export interface ContextLimit {
  /** Tokens in plus out that the model takes. */
  contextWindow: number;
  /** Kept free for the answer (the node's `max_tokens`). */
  reservedTokens: number;
}

/** What one trim did to a request; tokens are counted with gpt-tokenizer (o200k_base). */
export interface ContextTrim {
  tokensBefore: number;
  tokensAfter: number;
  /** Older tool results replaced by their short form. */
  shortenedResults: number;
  /** Messages left out: whole turns, oldest first (an assistant message always with its tool results). */
  droppedMessages: number;
}

export interface FittedRequest {
  messages: ChatMessage[];
  /** Null when the request fitted as it was. */
  trim: ContextTrim | null;
}

/** Even the messages that are never left out (system, task, latest call and its results) do not fit. */
export class ContextOverflowError extends Error {
  constructor(
    readonly neededTokens: number,
    readonly limit: ContextLimit,
  ) {
    super(
      `the request does not fit the model's context window: the system prompt, the task, the tools and the ` +
        `latest tool calls with their results alone take about ${neededTokens} tokens, but the window of ` +
        `${limit.contextWindow} tokens minus ${limit.reservedTokens} kept for the answer (max_tokens) leaves ` +
        `${limit.contextWindow - limit.reservedTokens}; raise context_window, lower max_tokens or ` +
        'max_tool_result_tokens, or offer fewer tools',
    );
    this.name = 'ContextOverflowError';
  }
}

/**
 * Keeps each request of a loop within the model's context window minus the tokens reserved for its answer.
 * First the older tool results are replaced by their short form (cut to SHORT_RESULT_TOKENS, oldest first), then
 * whole turns are left out, oldest first, and the task says so. Never touched: system messages, the task (the
 * node's prompt) and the latest turn (the last assistant message with its tool results and what follows), so
 * every tool result keeps its call and every call its result. Token counts and short forms are remembered per
 * message object, so a long loop does not count its history again on every call.
 */
export class ContextFitter {
  private readonly shortForms = new WeakMap<ChatMessage, ChatMessage>();

  constructor(
    readonly limit: ContextLimit,
    private readonly tokens = new RequestTokenCounter(),
  ) {}

  /** `taskIndex`: where the task is in `messages` (-1: none). */
  fit(messages: readonly ChatMessage[], tools: readonly FunctionTool[], taskIndex: number): FittedRequest {
    const budget = this.limit.contextWindow - this.limit.reservedTokens;
    if (this.tokens.upperBound(messages, tools) <= budget) return { messages: [...messages], trim: null };
    const toolTokens = this.tokens.toolTokens(tools);
    const tokensBefore = this.tokens.count(messages, tools);
    if (tokensBefore <= budget) return { messages: [...messages], trim: null };

    const kept: ChatMessage[] = [...messages];
    const { history, turns } = splitTurns(messages, taskIndex);
    const older = turns.slice(0, -1);
    let total = tokensBefore;
    let shortenedResults = 0;
    for (const index of older.flat()) {
      if (total <= budget) break;
      const message = kept[index];
      if (message.role !== 'tool') continue;
      const short = this.shortForm(message);
      const saved = this.tokens.messageTokens(message) - this.tokens.messageTokens(short);
      if (saved <= 0) continue;
      kept[index] = short;
      total -= saved;
      shortenedResults += 1;
    }

    const dropped = new Set<number>();
    const droppable = [...history, ...older];
    const noteTokens = countTokens(droppedNote(messages.length)) + MESSAGE_OVERHEAD_TOKENS;
    for (const unit of droppable) {
      if (total + (dropped.size > 0 ? noteTokens : 0) <= budget) break;
      for (const index of unit) {
        total -= this.tokens.messageTokens(kept[index]);
        dropped.add(index);
      }
    }

    let result = kept.filter((_, index) => !dropped.has(index));
    if (dropped.size > 0) result = withDropNote(result, kept, taskIndex, dropped.size);
    const tokensAfter = toolTokens + result.reduce((sum, message) => sum + this.tokens.messageTokens(message), 0);
    if (tokensAfter > budget) throw new ContextOverflowError(tokensAfter, this.limit);
    return { messages: result, trim: { tokensBefore, tokensAfter, shortenedResults, droppedMessages: dropped.size } };
  }

  /** The result cut to SHORT_RESULT_TOKENS; a result cut before keeps its note and so its ref. */
  private shortForm(message: Extract<ChatMessage, { role: 'tool' }>): ChatMessage {
    let short = this.shortForms.get(message);
    if (short === undefined) {
      const noteAt = message.content.lastIndexOf(`\n${CUT_NOTE_START}`);
      const body = noteAt < 0 ? message.content : message.content.slice(0, noteAt);
      const earlierNote = noteAt < 0 ? null : message.content.slice(noteAt + 1);
      const note = (what: string): string =>
        earlierNote === null
          ? `[Older tool result shortened to fit the context window: ${what}. Call the tool again if you need all of it.]`
          : `[Shortened again to fit the context window: ${what}.] ${earlierNote}`;
      const content = cutToolResult(body, { maxTokens: SHORT_RESULT_TOKENS, ref: null, note });
      short = content === null ? message : { ...message, content };
      this.shortForms.set(message, short);
    }
    return short;
  }
}

/**
 * The turns that may be left out, as lists of message indexes: `history` (earlier conversation before the task,
 * one unit per user message and the replies after it) and `turns` (after the task, one per assistant message
 * with the tool results and notes after it). System messages and the task are in neither.
 */
function splitTurns(messages: readonly ChatMessage[], taskIndex: number): { history: number[][]; turns: number[][] } {
  const history: number[][] = [];
  const turns: number[][] = [];
  messages.forEach((message, index) => {
    if (message.role === 'system' || index === taskIndex) return;
    if (index < taskIndex) {
      if (message.role === 'user' || history.length === 0) history.push([index]);
      else history[history.length - 1].push(index);
      return;
    }
    if (message.role === 'assistant') turns.push([index]);
    // Anything between the task and the first assistant message stays with the task.
    else if (turns.length > 0) turns[turns.length - 1].push(index);
  });
  return { history, turns };
}

function droppedNote(count: number): string {
  return `\n\n[${count} earlier messages of this conversation were left out to fit the model's context window.]`;
}

/** The task, told that messages were left out; without a task, the note goes on the first user message kept. */
function withDropNote(
  result: ChatMessage[],
  kept: readonly ChatMessage[],
  taskIndex: number,
  count: number,
): ChatMessage[] {
  const task = taskIndex >= 0 ? kept[taskIndex] : result.find((message) => message.role === 'user');
  if (task === undefined || task.role !== 'user') return result;
  return result.map((message) =>
    message === task ? { role: 'user', content: `${task.content}${droppedNote(count)}` } : message,
  );
}
