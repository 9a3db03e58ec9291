import { countTokens, fitsInTokens, headByTokens, tailByTokens } from '../llm/token-count';
import { shrinkJson, type ShrinkLimits, type ShrinkReport } from './shrink-json';
import { parseJsonWithin } from '../shared/json-depth';

export interface CutToolResultOptions {
  maxTokens: number;
  /** Where the full text is stored; null when it could not be stored. */
  ref: string | null;
  /** Writes the note from what was cut, instead of the note naming `ref`. */
  note?: (what: string) => string;
}

/** Starts of every note a cut leaves, so the conversation shows which results were cut. */
export const CUT_NOTE_START = '[Tool result cut to fit';

const FIRST_LIMITS: ShrinkLimits = { items: 20, chars: 400, keys: 60, depth: 8 };
const MIN_LIMITS: ShrinkLimits = { items: 1, chars: 40, keys: 4, depth: 2 };
const SHRINK_ROUNDS = 12;
/** Head and tail shares of a text cut. */
const HEAD_SHARE = 2 / 3;
const LISTED_ARRAYS = 3;

/**
 * The text the model gets for a result longer than `maxTokens` tokens: JSON keeps its structure (keys kept,
 * long arrays and strings shortened, with how many items were dropped), any other text keeps its head and
 * tail. A note at the end says what was cut and how to read the full result with read_tool_result.
 * Returns null when the text fits.
 */
export function cutToolResult(text: string, options: CutToolResultOptions): string | null {
  const { maxTokens } = options;
  if (fitsInTokens(text, maxTokens)) return null;
  const totalTokens = countTokens(text);
  const noteFor = (what: string): string => options.note?.(what) ?? cutNote(what, text.length, totalTokens, options);
  const budget = Math.max(20, maxTokens - countTokens(noteFor('x'.repeat(120))));
  const json = parseJson(text);
  if (json !== undefined) {
    const shrunk = shrinkToFit(json, budget);
    if (shrunk !== null) return `${shrunk.text}\n${noteFor(describeShrink(shrunk.report))}`;
  }
  const headTokens = Math.floor(budget * HEAD_SHARE);
  const head = headByTokens(text, headTokens);
  const tail = tailByTokens(text, budget - headTokens - 20);
  const omitted = text.length - head.length - tail.length;
  const gap = `\n[… ${omitted} characters cut here …]\n`;
  return `${head}${gap}${tail}\n${noteFor(`kept the first ${head.length} and last ${tail.length} characters`)}`;
}

function cutNote(what: string, chars: number, tokens: number, { maxTokens, ref }: CutToolResultOptions): string {
  const size = `${chars} characters, about ${tokens} tokens`;
  const read =
    ref === null
      ? 'The full result could not be stored.'
      : `The full result (${size}) is stored as ref "${ref}": call read_tool_result with {"ref": "${ref}", ` +
        '"offset": <character offset>} to read it in pages.';
  return `${CUT_NOTE_START} ${maxTokens} tokens: ${what}. ${read}]`;
}

function parseJson(text: string): unknown {
  const start = text.trimStart()[0];
  if (start !== '{' && start !== '[') return undefined;
  try {
    return parseJsonWithin(text);
  } catch {
    return undefined;
  }
}

/** Shortens with tighter limits each round until the compact JSON fits; null when even the tightest does not. */
function shrinkToFit(value: unknown, budget: number): { text: string; report: ShrinkReport } | null {
  let limits = FIRST_LIMITS;
  for (let round = 0; round < SHRINK_ROUNDS; round++) {
    const { value: shrunk, report } = shrinkJson(value, limits);
    const text = JSON.stringify(shrunk);
    if (fitsInTokens(text, budget)) return { text, report };
    limits = {
      items: Math.max(MIN_LIMITS.items, Math.floor(limits.items / 2)),
      chars: Math.max(MIN_LIMITS.chars, Math.floor(limits.chars / 2)),
      keys: Math.max(MIN_LIMITS.keys, Math.floor(limits.keys * 0.7)),
      depth: round % 2 === 1 ? Math.max(MIN_LIMITS.depth, limits.depth - 1) : limits.depth,
    };
  }
  return null;
}

function describeShrink(report: ShrinkReport): string {
  const parts: string[] = [];
  const arrays = [...report.arrays].sort((a, b) => b.total - b.kept - (a.total - a.kept));
  for (const { path, kept, total } of arrays.slice(0, LISTED_ARRAYS)) {
    parts.push(`${path} kept ${kept} of ${total} items (${total - kept} dropped)`);
  }
  if (arrays.length > LISTED_ARRAYS) parts.push(`${arrays.length - LISTED_ARRAYS} more arrays shortened`);
  if (report.strings > 0) parts.push(`${report.strings} long strings shortened`);
  if (report.objects > 0) parts.push(`${report.objects} objects summarised or cut to their first keys`);
  return parts.length > 0 ? `JSON shortened, every kept value in place: ${parts.join('; ')}` : 'JSON shortened';
}
