/**
 * What a schema form reads from the text a person typed. A form never changes a value to fit the schema (no
 * clamping, rounding or dropping): text is either read exactly, or refused with a problem and nothing is sent.
 * The API judges the schema (`minimum`, `maxLength`, `pattern`, …) and names the field when a value does not fit.
 */
export type TextReading = { ok: true; value: unknown } | { ok: false; problem: string };

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** A number field's text: empty is no value; otherwise a JSON number literal, read exactly. */
export function readNumberText(text: string): TextReading {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, value: undefined };
  if (!NUMBER.test(trimmed)) return { ok: false, problem: 'is not a number' };
  const value = Number(trimmed);
  if (!Number.isFinite(value)) return { ok: false, problem: 'is too large for a number' };
  // 0.1000000000000000000001 reads as 0.1: a value that does not survive the round trip would be another value.
  if (!sameNumber(trimmed, value)) return { ok: false, problem: 'has more digits than a number can hold' };
  return { ok: true, value };
}

/** A JSON field's text: empty is no value; otherwise the JSON it holds, or a problem (never the last valid value). */
export function readJsonText(text: string): TextReading {
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, problem: 'is not valid JSON' };
  }
}

/** The text a number field shows for a value it did not read from typing (the model's, a default). */
export const numberText = (value: unknown): string => (value === undefined || value === null ? '' : String(value));

function sameNumber(text: string, value: number): boolean {
  const significant = (mantissa: string) => mantissa.replace(/[-.]/g, '').replace(/^0+/, '').replace(/0+$/, '');
  const typed = significant(text.toLowerCase().split('e')[0]);
  // Up to 15 significant digits always survive a double; more must equal the shortest form of the value read.
  return typed.length <= 15 || typed === significant(Math.abs(value).toExponential().split('e')[0]);
}
