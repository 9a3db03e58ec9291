import { ELLIPSIS, truncate } from '../shared/truncate';
import type { JsonSchema } from '../shared/tool-types';
import type { ArgumentError } from '../shared/argument-error';
import { describeSchema } from './describe-schema';

const MAX_LENGTH = 1500;
const MAX_VALUE_LENGTH = 80;
const MAX_LINE_LENGTH = 400;

const describeValue = (value: unknown): string => {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? 'an unserializable value';
  return truncate(text, MAX_VALUE_LENGTH, ELLIPSIS);
};

/** One error as a line: the field, the rule broken, the value received and what is expected. */
export const formatArgumentError = (error: ArgumentError): string =>
  truncate(
    `${error.path || '(root)'}: ${error.message} (rule: ${error.rule}); ` +
      `received ${describeValue(error.value)}; expected ${error.expected}`,
    MAX_LINE_LENGTH,
    ELLIPSIS,
  );

/**
 * The text the model receives when its arguments are rejected: one line per field with the rule
 * broken, the value received and what is expected, then the expected shape of all arguments.
 * Deterministic and capped at ~1500 characters.
 */
export function formatArgumentErrors(toolName: string, errors: readonly ArgumentError[], schema: JsonSchema): string {
  const header = `Invalid arguments for tool "${toolName}". Fix them and call the tool again.`;
  const shape = `Expected arguments: ${describeSchema(schema, 3)}`;
  const lines = [header];
  let length = header.length + shape.length + 2;
  for (const [index, error] of errors.entries()) {
    const line = `- ${formatArgumentError({ ...error, path: error.path || '(arguments)' })}`;
    const remaining = errors.length - index;
    if (length + line.length + 1 > MAX_LENGTH - 40) {
      lines.push(`- … and ${remaining} more error${remaining === 1 ? '' : 's'}`);
      break;
    }
    lines.push(line);
    length += line.length + 1;
  }
  const budget = MAX_LENGTH - lines.join('\n').length - 1;
  lines.push(truncate(shape, Math.max(1, budget), ELLIPSIS));
  return lines.join('\n');
}
