import type { ToolCall, ToolCallRepairKind } from '../shared/tool-types';
import { extractTextToolCalls, type TextToolCall } from './text-tool-calls';
import { parseJsonWithin } from '../shared/json-depth';

export interface RepairInput {
  content: string;
  toolCalls: readonly ToolCall[];
  /** Names of the tools offered in the request; nothing is recovered for any other name. */
  toolNames: readonly string[];
  /** Gives the id of a call recovered from the text. */
  nextId: () => string;
}

export interface RepairResult {
  content: string;
  toolCalls: ToolCall[];
  /** One line per repair, for `ChatResponse.repairs`. */
  repairs: string[];
}

/** The repair kind of each markup a call can be read from. */
const KIND_OF_SOURCE: Record<TextToolCall['source'], ToolCallRepairKind> = {
  'JSON answer': 'json_answer',
  'json code fence': 'json_fence',
  '[TOOL_CALLS] list': 'tool_calls_list',
  python_tag: 'python_tag',
  'tool_call tag': 'tool_call_tag',
  'function tag': 'function_tag',
  'python call': 'python_call',
};

// A name with junk attached: `get_weather" city="x`, `get_weather {"city":"x"}`, `functions.get_weather`.
const NAME_WITH_TAIL = /^[\s"'`]*(?:functions\.)?([A-Za-z_][\w-]*)([\s\S]*)$/;
const KEY_VALUE = /([A-Za-z_]\w*)\s*[=:]\s*("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|[^\s,)}]+)/g;

/**
 * Recovers tool calls from models that do not emit clean `tool_calls`. Argument JSON is kept raw:
 * fixing it is the registry argument parser's job. Calls written in the text are looked for only
 * when the provider returned no structured call, so a call is never counted twice. Every call repaired here
 * carries its `repair` mark.
 */
export function repairToolCalls(input: RepairInput): RepairResult {
  const known = new Set(input.toolNames);
  const repairs: string[] = [];
  const toolCalls = input.toolCalls.map((call) => {
    const repaired = repairName(call, known);
    if (repaired === null) return { ...call };
    repairs.push(`tool call ${call.id}: name ${JSON.stringify(call.name)} became "${repaired.name}"`);
    return repaired;
  });
  if (toolCalls.length > 0 || known.size === 0) return { content: input.content, toolCalls, repairs };

  const extracted = extractTextToolCalls(input.content, known);
  for (const call of extracted.calls) {
    const id = input.nextId();
    toolCalls.push({ id, name: call.name, arguments: call.arguments, repair: { kind: KIND_OF_SOURCE[call.source] } });
    repairs.push(`tool call ${id}: "${call.name}" recovered from a ${call.source} in the text`);
  }
  return { content: extracted.content, toolCalls, repairs };
}

function repairName(call: ToolCall, known: ReadonlySet<string>): ToolCall | null {
  if (known.has(call.name)) return null;
  const match = NAME_WITH_TAIL.exec(call.name);
  if (match === null || !known.has(match[1])) return null;
  const fromName = argumentsFromTail(match[2]);
  return {
    ...call,
    name: match[1],
    arguments: mergeArguments(call.arguments, fromName),
    repair: { kind: 'tool_name' },
  };
}

function argumentsFromTail(tail: string): string | Record<string, unknown> | null {
  const text = tail.trim().replace(/^["'`(]+/, '');
  if (text.startsWith('{')) return text.replace(/\)$/, '');
  const pairs: Record<string, unknown> = {};
  for (const [, key, raw] of text.matchAll(KEY_VALUE)) pairs[key] = literal(raw);
  return Object.keys(pairs).length > 0 ? pairs : null;
}

function literal(raw: string): unknown {
  const quote = raw[0];
  if (quote === '"' || quote === "'") {
    const body = raw.length > 1 && raw.endsWith(quote) ? raw.slice(1, -1) : raw.slice(1);
    return body.replace(/\\(.)/g, '$1');
  }
  try {
    return parseJsonWithin(raw);
  } catch {
    return raw;
  }
}

/** Arguments the provider sent win; what was glued to the name only fills the gaps. */
function mergeArguments(sent: string, fromName: string | Record<string, unknown> | null): string {
  if (fromName === null) return sent;
  const sentObject = parseObject(sent);
  const isEmpty = sent.trim() === '' || (sentObject !== null && Object.keys(sentObject).length === 0);
  if (typeof fromName === 'string') return isEmpty ? fromName : sent;
  if (isEmpty) return JSON.stringify(fromName);
  return sentObject === null ? sent : JSON.stringify({ ...fromName, ...sentObject });
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = parseJsonWithin(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
