import { parsePythonCalls } from './python-call';
import { readWholeAnswerCalls, type WholeAnswerSource } from './whole-answer-calls';
import { parseJsonWithin } from '../shared/json-depth';

export interface TextToolCall {
  name: string;
  /** Raw JSON text; left unrepaired for the registry's argument parser. */
  arguments: string;
  /** Which markup it came from, for the repair log. */
  source: 'tool_call tag' | 'function tag' | 'python call' | WholeAnswerSource;
}

export interface TextToolCallsResult {
  content: string;
  calls: TextToolCall[];
}

// Hermes/Qwen: <tool_call>{"name": …, "arguments": …}</tool_call>; the closing tag may be cut off.
const TOOL_CALL_TAG = /<tool_call>\s*([\s\S]*?)\s*(?:<\/tool_call>|$)/g;
// Llama 3.x: <function=name>{…}</function>
const FUNCTION_TAG = /<function=([\w.-]+)>\s*([\s\S]*?)\s*<\/function>/g;

/**
 * Finds tool calls a model wrote into its text instead of `tool_calls`, for the given tool names only,
 * and removes their markup from the content. Unknown names are left in the text untouched.
 */
export function extractTextToolCalls(content: string, toolNames: ReadonlySet<string>): TextToolCallsResult {
  const whole = readWholeAnswerCalls(content, toolNames);
  if (whole !== null) return { content: '', calls: whole.calls.map((call) => ({ ...call, source: whole.source })) };
  const calls: TextToolCall[] = [];
  let rest = content.replace(TOOL_CALL_TAG, (markup, body: string) => {
    const call = readToolCallJson(body);
    if (call === null || !toolNames.has(call.name)) return markup;
    calls.push({ ...call, source: 'tool_call tag' });
    return '';
  });
  rest = rest.replace(FUNCTION_TAG, (markup, name: string, body: string) => {
    if (!toolNames.has(name)) return markup;
    calls.push({ name, arguments: body.trim() === '' ? '{}' : body.trim(), source: 'function tag' });
    return '';
  });
  if (calls.length === 0) {
    rest = rest
      .split('\n')
      .filter((line) => {
        const found = parsePythonCalls(line.trim().replace(/^`+|`+$/g, ''));
        if (found === null || !found.every((call) => toolNames.has(call.name))) return true;
        for (const call of found) {
          calls.push({ name: call.name, arguments: JSON.stringify(call.arguments), source: 'python call' });
        }
        return false;
      })
      .join('\n');
  }
  return { content: calls.length === 0 ? content : tidy(rest), calls };
}

function readToolCallJson(body: string): { name: string; arguments: string } | null {
  try {
    const parsed: unknown = parseJsonWithin(body);
    if (typeof parsed !== 'object' || parsed === null || !('name' in parsed) || typeof parsed.name !== 'string') {
      return null;
    }
    const args: unknown = 'arguments' in parsed ? parsed.arguments : 'parameters' in parsed ? parsed.parameters : {};
    return { name: parsed.name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) };
  } catch {
    // Broken envelope: keep the arguments text raw so the argument parser can still repair it.
    const name = /"name"\s*:\s*"([^"]+)"/.exec(body)?.[1];
    const args = /"(?:arguments|parameters)"\s*:\s*([\s\S]*?)\s*\}?\s*$/.exec(body)?.[1];
    return name === undefined ? null : { name, arguments: args ?? '{}' };
  }
}

const tidy = (text: string): string => text.replace(/\n{3,}/g, '\n\n').trim();
