import { createHash } from 'node:crypto';
import { TOOL_NAME_PATTERN } from './function-schema';

const MAX_LENGTH = 64;

/**
 * A valid tool name (`^[a-zA-Z0-9_-]{1,64}$`) made from any text: other characters become `_`; a name too long
 * keeps its start and ends in a short hash of the whole text, so two long names that differ late stay distinct.
 */
export function toToolName(raw: string): string {
  const cleaned = raw.replace(/[^a-zA-Z0-9_-]/g, '_') || '_';
  if (cleaned.length <= MAX_LENGTH) return cleaned;
  const hash = createHash('sha256').update(raw).digest('hex').slice(0, 8);
  return `${cleaned.slice(0, MAX_LENGTH - hash.length - 1)}_${hash}`;
}

/** `name`, or `name_2`, `name_3` … (kept within 64 characters): the first valid one that `taken` does not hold. */
export function uniqueToolName(name: string, taken: ReadonlySet<string>): string {
  let candidate = name;
  for (let counter = 2; taken.has(candidate) || !TOOL_NAME_PATTERN.test(candidate); counter += 1) {
    const suffix = `_${counter}`;
    candidate = `${name.slice(0, MAX_LENGTH - suffix.length)}${suffix}`;
  }
  return candidate;
}
