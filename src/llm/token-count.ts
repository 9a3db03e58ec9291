import { decode, encode, isWithinTokenLimit } from 'gpt-tokenizer';

/**
 * Token counting with OpenAI's o200k_base encoding (gpt-tokenizer): exact for OpenAI models, an approximation
 * for every other model. Encoding is linear but not cheap (about 0.4 s for 5 MB), so nothing here encodes more
 * of a text than the question needs.
 */

/** Above any real average: a text longer than this many characters per allowed token is over the limit. */
const MAX_CHARS_PER_TOKEN = 12;
/** Texts up to this length are counted exactly; longer ones from samples. */
const EXACT_COUNT_CHARS = 200_000;
const SAMPLE_CHARS = 50_000;

/** Whether `text` has at most `limit` tokens; reads at most `limit * 12` characters of it. */
export function fitsInTokens(text: string, limit: number): boolean {
  if (text.length <= limit) return true;
  if (text.length > limit * MAX_CHARS_PER_TOKEN) return false;
  return isWithinTokenLimit(text, limit) !== false;
}

/** Exact up to 200,000 characters; beyond, extrapolated from samples of the start, middle and end. */
export function countTokens(text: string): number {
  if (text.length <= EXACT_COUNT_CHARS) return encode(text).length;
  const middle = Math.floor(text.length / 2 - SAMPLE_CHARS / 2);
  const samples = [text.slice(0, SAMPLE_CHARS), text.slice(middle, middle + SAMPLE_CHARS), text.slice(-SAMPLE_CHARS)];
  const sampled = samples.reduce((sum, sample) => sum + encode(sample).length, 0);
  return Math.round((sampled / (SAMPLE_CHARS * samples.length)) * text.length);
}

/** The longest start of `text` with at most `tokens` tokens. */
export function headByTokens(text: string, tokens: number): string {
  if (tokens <= 0) return '';
  const encoded = encode(text.slice(0, tokens * MAX_CHARS_PER_TOKEN));
  if (encoded.length <= tokens && text.length <= tokens * MAX_CHARS_PER_TOKEN) return text;
  return decode(encoded.slice(0, tokens)).replace(/\uFFFD+$/, '');
}

/** The longest end of `text` with at most `tokens` tokens (give or take the token cut at its start). */
export function tailByTokens(text: string, tokens: number): string {
  if (tokens <= 0) return '';
  const window = text.slice(-tokens * MAX_CHARS_PER_TOKEN);
  const encoded = encode(window);
  if (encoded.length <= tokens) return window;
  return decode(encoded.slice(-tokens)).replace(/^\uFFFD+/, '');
}
