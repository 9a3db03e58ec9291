import { isRecord } from '../shared/is-record';
import { parsePythonCalls } from './python-call';
import { parseJsonWithin } from '../shared/json-depth';

export type WholeAnswerSource = 'JSON answer' | 'json code fence' | '[TOOL_CALLS] list' | 'python_tag';

export interface WholeAnswerCall {
  name: string;
  /** Raw JSON text, like a provider's `arguments`. */
  arguments: string;
}

export interface WholeAnswerCalls {
  calls: WholeAnswerCall[];
  source: WholeAnswerSource;
}

// Keys a call envelope may carry; an object with any other key is data, not a call.
const ENVELOPE_KEYS = new Set([
  'name',
  'tool',
  'tool_name',
  'function',
  'arguments',
  'parameters',
  'args',
  'type',
  'id',
]);
const NAME_KEYS = ['name', 'tool', 'tool_name', 'function'] as const;
const ARGUMENT_KEYS = ['arguments', 'parameters', 'args'] as const;

const FENCE = /^```[ \t]*(?:json)?[ \t]*\r?\n([\s\S]*?)\r?\n?```$/i;
const TOOL_CALLS_MARKER = /^\[TOOL_CALLS\]\s*/;
const PYTHON_TAG = /^<\|python_tag\|>\s*/;
const END_TOKENS = /\s*(?:<\|eom_id\|>|<\|eot_id\|>|<\/s>)\s*$/;

/**
 * Reads an answer that is nothing but tool calls written as text: a bare JSON call object or array of them
 * (`{"name", "arguments"}`, `{"tool", "parameters"}`, `{"function": {…}}`), the same in a json code fence,
 * after Mistral's `[TOOL_CALLS]`, or after Llama's `<|python_tag|>` (JSON, several joined by `;`, or a
 * Python-style call). Every call must name a known tool; otherwise, or when anything else is in the answer
 * (prose that shows JSON), the answer stays an answer and null is returned.
 */
export function readWholeAnswerCalls(content: string, toolNames: ReadonlySet<string>): WholeAnswerCalls | null {
  const text = content.trim().replace(END_TOKENS, '');
  if (text === '') return null;
  const fenced = FENCE.exec(text);
  if (fenced) return found(readJsonCalls(fenced[1]), 'json code fence', toolNames);
  if (TOOL_CALLS_MARKER.test(text)) {
    return found(readJsonCalls(text.replace(TOOL_CALLS_MARKER, '')), '[TOOL_CALLS] list', toolNames);
  }
  if (PYTHON_TAG.test(text)) return found(readPythonTag(text.replace(PYTHON_TAG, '')), 'python_tag', toolNames);
  if (text.startsWith('{') || text.startsWith('[')) return found(readJsonCalls(text), 'JSON answer', toolNames);
  return null;
}

function found(
  calls: WholeAnswerCall[] | null,
  source: WholeAnswerSource,
  toolNames: ReadonlySet<string>,
): WholeAnswerCalls | null {
  if (calls === null || calls.length === 0 || !calls.every((call) => toolNames.has(call.name))) return null;
  return { calls, source };
}

function readPythonTag(body: string): WholeAnswerCall[] | null {
  const json = readJsonCalls(body);
  if (json !== null) return json;
  const parts = body.split(/;\s*(?=\{)/);
  if (parts.length > 1) {
    const calls: WholeAnswerCall[] = [];
    for (const part of parts) {
      const read = readJsonCalls(part.replace(/;\s*$/, ''));
      if (read === null) return null;
      calls.push(...read);
    }
    return calls;
  }
  const python = parsePythonCalls(body);
  return python?.map((call) => ({ name: call.name, arguments: JSON.stringify(call.arguments) })) ?? null;
}

function readJsonCalls(text: string): WholeAnswerCall[] | null {
  let parsed: unknown;
  try {
    parsed = parseJsonWithin(text.trim());
  } catch {
    return null;
  }
  const items = Array.isArray(parsed) ? parsed : [parsed];
  const calls: WholeAnswerCall[] = [];
  for (const item of items) {
    const call = readEnvelope(item);
    if (call === null) return null;
    calls.push(call);
  }
  return calls;
}

function readEnvelope(value: unknown): WholeAnswerCall | null {
  if (!isRecord(value) || !Object.keys(value).every((key) => ENVELOPE_KEYS.has(key))) return null;
  // OpenAI's own shape written as text: {"type": "function", "function": {"name", "arguments"}}
  if (isRecord(value.function)) return readEnvelope(value.function);
  const name = NAME_KEYS.map((key) => value[key]).find((candidate) => typeof candidate === 'string');
  if (typeof name !== 'string') return null;
  const args = ARGUMENT_KEYS.map((key) => value[key]).find((candidate) => candidate !== undefined) ?? {};
  if (typeof args === 'string') return { name, arguments: args };
  return isRecord(args) ? { name, arguments: JSON.stringify(args) } : null;
}
