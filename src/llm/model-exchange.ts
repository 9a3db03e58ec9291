import { redactJsonText } from '../shared/json-text-redactor';
import { maskSecrets } from '../shared/secrets';
import { secretArgumentNames } from '../shared/argument-secrets';
import type { ChatMessage } from '../shared/chat-types';
import type { ChatRequest, ChatResponse } from './provider';

/** The JSON part of a request: what the protocol sent, without the call's options (signal, listeners). */
export type ExchangeRequest = ChatRequest;

/**
 * One model call of a run, as sent and as answered, secrets masked: what a replay answers the same call with
 * and compares the replayed request against. `callIndex` counts the calls of one node in one `item` from 0.
 */
export interface ModelExchange {
  nodeId: string;
  /**
   * The map items and loop iterations the node ran inside, outermost first (`each[2]`, `each[2]/again[0]`); ''
   * outside any. Recordings made before items were kept have '' everywhere.
   */
  item: string;
  callIndex: number;
  provider: string;
  model: string;
  request: ExchangeRequest;
  response: ChatResponse;
  durationMs: number;
}

/** One key per node and item: whose calls `callIndex` counts. */
export const exchangeKey = (nodeId: string, item: string): string => (item === '' ? nodeId : `${item}/${nodeId}`);

const maskMessage = (message: ChatMessage, secretArguments: ReadonlySet<string>): ChatMessage =>
  message.role === 'assistant' && message.tool_calls !== undefined
    ? {
        ...message,
        tool_calls: message.tool_calls.map((call) => ({
          ...call,
          function: { ...call.function, arguments: redactJsonText(call.function.arguments, secretArguments) },
        })),
      }
    : message;

/**
 * The request as it is stored and compared: credential-named values and URL credentials masked (maskSecrets),
 * and the same inside the JSON text of tool-call arguments. Masking is deterministic, so a replayed request
 * masked alike equals the recorded one when the calls are the same.
 */
export const maskRequest = (request: ChatRequest): ExchangeRequest => {
  const secretArguments = secretArgumentsOf(request);
  const messages = request.messages.map((message) =>
    reused(message, secretArguments, () => maskSecrets(maskMessage(jsonCopy(message), secretArguments))),
  );
  const tools = request.tools?.map((tool) => reused(tool, NO_NAMES, () => maskSecrets(jsonCopy(tool))));
  // The rest copied as before, messages and tools (already masked, as maskSecrets leaves them) set in their places.
  const placeholders = { ...request, messages: [], tools: tools && [] };
  const masked = maskSecrets(jsonCopy(placeholders)) as ExchangeRequest;
  masked.messages = messages;
  if (tools) masked.tools = tools;
  return masked;
};

/** A value as it reads back from JSON (undefined properties gone). */
const jsonCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const NO_NAMES: ReadonlySet<string> = new Set();

/*
 * Masked copies of the messages and tools of requests, by the object masked and the secret argument names it was
 * masked with: a conversation's history and its tools go out again in every request of a run, and never change
 * once made (as stored checkpoints rely on too), so each is masked once instead of once per later call.
 */
const maskedCopies = new WeakMap<object, { names: ReadonlySet<string>; copy: unknown }>();

const reused = <T>(value: T, names: ReadonlySet<string>, mask: () => T): T => {
  if (typeof value !== 'object' || value === null) return mask();
  const known = maskedCopies.get(value);
  if (known !== undefined && sameNames(known.names, names)) return known.copy as T;
  const copy = mask();
  maskedCopies.set(value, { names, copy });
  return copy;
};

const sameNames = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean =>
  a === b || (a.size === b.size && [...a].every((name) => b.has(name)));

/** The argument names the request's tools declare secret (`format: password`, `writeOnly`, `x-secret`). */
export const secretArgumentsOf = (request: Pick<ChatRequest, 'tools'>): ReadonlySet<string> =>
  secretArgumentNames(...(request.tools ?? []).map((tool) => tool.function.parameters));

/** The answer as it is stored: masked like the request, tool-call arguments included. */
export const maskResponse = (response: ChatResponse, secretArguments?: ReadonlySet<string>): ChatResponse => {
  const plain = JSON.parse(JSON.stringify(response)) as ChatResponse;
  return maskSecrets({
    ...plain,
    toolCalls: plain.toolCalls.map((call) => ({ ...call, arguments: redactJsonText(call.arguments, secretArguments) })),
    malformedToolCalls: plain.malformedToolCalls.map((call) => ({
      ...call,
      arguments: redactJsonText(call.arguments, secretArguments),
    })),
  });
};
