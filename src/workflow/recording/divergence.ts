import type { ExchangeRequest } from '../../llm/model-exchange';
import type { ChatMessage } from '../../shared/chat-types';
import { isRecord } from '../../shared/is-record';
import { ELLIPSIS, truncate } from '../../shared/truncate';

export const DIVERGENCE_KINDS = [
  'model',
  'message',
  'tool_arguments',
  'tools',
  'options',
  'extra_call',
  'missing_call',
] as const;
/** What differs: the model, a message, a tool call's arguments, the tool list or a tool, the call's options, or the number of calls. */
export type DivergenceKind = (typeof DIVERGENCE_KINDS)[number];

/** Where a replay first left its recording, precisely. */
export interface Divergence {
  kind: DivergenceKind;
  node_id: string;
  /** The map item or loop iteration the node ran in (`each[2]`, see RunContext.item); absent: outside any. */
  item?: string;
  /** Which model call of the node in its item (from 0). */
  call_index: number;
  /** The message of the request that differs (kinds message and tool_arguments). */
  message_index?: number;
  /** The tool whose definition or call differs (kinds tools and tool_arguments). */
  tool?: string;
  /** Where inside the message, tool or arguments it differs, as a dotted path (`parameters.properties.city.type`). */
  path?: string;
  /** When both sides are text there: the first character (from 0) at which they differ. */
  offset?: number;
  /** What the recording has there (absent: nothing). */
  expected?: unknown;
  /** What the replay sent there (absent: nothing). */
  actual?: unknown;
  description: string;
}

type Location = Pick<Divergence, 'node_id' | 'item' | 'call_index'>;

const join = (path: string, key: string | number) =>
  typeof key === 'number' ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`;

/** The first place two JSON values differ (depth first, keys in the recording's order, then added keys); null if equal. */
export function firstDifference(
  expected: unknown,
  actual: unknown,
  path = '',
): { path: string; expected: unknown; actual: unknown } | null {
  if (Array.isArray(expected) && Array.isArray(actual)) {
    for (let index = 0; index < Math.max(expected.length, actual.length); index++) {
      if (index >= expected.length || index >= actual.length) {
        return { path: join(path, index), expected: expected[index], actual: actual[index] };
      }
      const found = firstDifference(expected[index], actual[index], join(path, index));
      if (found) return found;
    }
    return null;
  }
  if (isRecord(expected) && isRecord(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
    for (const key of keys) {
      const found = firstDifference(expected[key], actual[key], join(path, key));
      if (found) return found;
    }
    return null;
  }
  return Object.is(expected, actual) ? null : { path, expected, actual };
}

const parsedArguments = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

/** How much of a value a description quotes: descriptions stay one short line, whatever the prompt's length. */
const SHOWN_CHARS = 80;
/** Characters an excerpt shows before the first difference (the rest of SHOWN_CHARS come after it). */
const CONTEXT_BEFORE = 24;

const show = (value: unknown) =>
  value === undefined ? 'nothing' : truncate(String(JSON.stringify(value)), SHOWN_CHARS, ELLIPSIS);

/** The first character at which two texts differ (the shorter one's length when it begins the other). */
export function firstDifferentCharacter(expected: string, actual: string): number {
  let index = 0;
  while (index < expected.length && index < actual.length && expected[index] === actual[index]) index++;
  return index;
}

/** A short quoted excerpt of `text` around `offset`, `…` marking what is left out on either side. */
function excerptAt(text: string, offset: number): string {
  const start = Math.max(0, offset - CONTEXT_BEFORE);
  const end = Math.min(text.length, start + SHOWN_CHARS);
  return JSON.stringify(`${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`);
}

/**
 * A difference found at `path`, described in bounded length: two long texts as `content, character 612: recorded
 * "…one short…", replayed "…two short…"`, else the two values (each cut to SHOWN_CHARS); `offset` for two texts.
 */
function described(difference: { path: string; expected: unknown; actual: unknown }): {
  offset?: number;
  text: string;
} {
  const where = difference.path || 'the top';
  const { expected, actual } = difference;
  if (typeof expected === 'string' && typeof actual === 'string') {
    const offset = firstDifferentCharacter(expected, actual);
    // Short texts are quoted whole; longer ones by an excerpt around the difference, its position named.
    if (JSON.stringify(expected).length <= SHOWN_CHARS && JSON.stringify(actual).length <= SHOWN_CHARS) {
      return { offset, text: `${where}: recorded ${show(expected)}, replayed ${show(actual)}` };
    }
    return {
      offset,
      text: `${where}, character ${offset}: recorded ${excerptAt(expected, offset)}, replayed ${excerptAt(actual, offset)}`,
    };
  }
  return { text: `${where}: recorded ${show(expected)}, replayed ${show(actual)}` };
}

function messageDivergence(
  at: Location,
  index: number,
  expected: ChatMessage | undefined,
  actual: ChatMessage | undefined,
): Divergence | null {
  if (expected === undefined || actual === undefined) {
    return {
      ...at,
      kind: 'message',
      message_index: index,
      expected,
      actual,
      description: `message ${index} was ${expected === undefined ? 'not in the recording' : 'not sent'}`,
    };
  }
  if (expected.role === 'assistant' && actual.role === 'assistant') {
    const recordedCalls = expected.tool_calls ?? [];
    const sentCalls = actual.tool_calls ?? [];
    for (let position = 0; position < Math.max(recordedCalls.length, sentCalls.length); position++) {
      const recorded = recordedCalls[position];
      const sent = sentCalls[position];
      if (recorded && sent && recorded.function.name === sent.function.name) {
        const difference = firstDifference(
          parsedArguments(recorded.function.arguments),
          parsedArguments(sent.function.arguments),
        );
        if (difference) {
          const { offset, text } = described(difference);
          return {
            ...at,
            kind: 'tool_arguments',
            message_index: index,
            tool: sent.function.name,
            path: difference.path,
            ...(offset === undefined ? {} : { offset }),
            expected: difference.expected,
            actual: difference.actual,
            description: `message ${index}: the arguments of the call of "${sent.function.name}" differ at ${text}`,
          };
        }
      }
    }
  }
  const difference = firstDifference(expected, actual);
  if (difference === null) return null;
  const { offset, text } = described(difference);
  return {
    ...at,
    kind: 'message',
    message_index: index,
    path: difference.path,
    ...(offset === undefined ? {} : { offset }),
    expected: difference.expected,
    actual: difference.actual,
    description: `message ${index} (${expected.role}) differs at ${text}`,
  };
}

function toolsDivergence(at: Location, expected: ExchangeRequest, actual: ExchangeRequest): Divergence | null {
  const recorded = expected.tools ?? [];
  const sent = actual.tools ?? [];
  const recordedNames = recorded.map((tool) => tool.function.name);
  const sentNames = sent.map((tool) => tool.function.name);
  if (firstDifference(recordedNames, sentNames) !== null) {
    const missing = recordedNames.filter((name) => !sentNames.includes(name));
    const added = sentNames.filter((name) => !recordedNames.includes(name));
    const change = [
      missing.length > 0 ? `not offered now: ${missing.join(', ')}` : '',
      added.length > 0 ? `offered now, not then: ${added.join(', ')}` : '',
    ].filter(Boolean);
    return {
      ...at,
      kind: 'tools',
      path: 'tools',
      expected: recordedNames,
      actual: sentNames,
      description: `the tool list differs (${change.join('; ') || 'another order'})`,
    };
  }
  for (const [index, tool] of recorded.entries()) {
    const difference = firstDifference(tool.function, sent[index].function);
    if (difference) {
      const { offset, text } = described(difference);
      return {
        ...at,
        kind: 'tools',
        tool: tool.function.name,
        path: difference.path,
        ...(offset === undefined ? {} : { offset }),
        expected: difference.expected,
        actual: difference.actual,
        description: `the definition of tool "${tool.function.name}" differs at ${text}`,
      };
    }
  }
  return null;
}

/**
 * Where a replayed request first differs from the recorded one (both masked alike): the model, then the
 * messages in order (a tool call's arguments named by tool and path), then the tool list and each tool's
 * definition, then the other options. Null when they are the same call.
 */
export function requestDivergence(at: Location, expected: ExchangeRequest, actual: ExchangeRequest): Divergence | null {
  if (expected.model !== actual.model) {
    return {
      ...at,
      kind: 'model',
      expected: expected.model,
      actual: actual.model,
      description: `the model differs: recorded "${expected.model}", replayed "${actual.model}"`,
    };
  }
  for (let index = 0; index < Math.max(expected.messages.length, actual.messages.length); index++) {
    const found = messageDivergence(at, index, expected.messages[index], actual.messages[index]);
    if (found) return found;
  }
  const tools = toolsDivergence(at, expected, actual);
  if (tools) return tools;
  const { model: _m, messages: _r, tools: _t, ...recordedOptions } = expected;
  const { model: _n, messages: _s, tools: _u, ...sentOptions } = actual;
  const difference = firstDifference(recordedOptions, sentOptions);
  if (difference === null) return null;
  const { offset, text } = described(difference);
  return {
    ...at,
    kind: 'options',
    path: difference.path,
    ...(offset === undefined ? {} : { offset }),
    expected: difference.expected,
    actual: difference.actual,
    description: `the call's options differ at ${text}`,
  };
}
