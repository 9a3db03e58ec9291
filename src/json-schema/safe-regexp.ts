import type { RegExpEngine, RegExpLike } from 'ajv/dist/types';
import { RE2JS } from 're2js';
import { errorMessage } from '../shared/error-text';

export type PatternCompileResult = { ok: true; regExp: RegExpLike } | { ok: false; message: string };

/**
 * Compiles a JSON Schema `pattern` with RE2 semantics (linear-time matching), so a user-supplied
 * pattern such as `^(a+)+$` cannot stall the event loop. Backreferences and lookaround are not
 * supported by RE2 and are reported as compile failures.
 */
export function compileSafePattern(pattern: string): PatternCompileResult {
  try {
    const compiled = RE2JS.compile(pattern);
    return {
      ok: true,
      regExp: { test: (input: string) => compiled.test(input), toString: () => `re2:${pattern}` } as RegExpLike,
    };
  } catch (error) {
    const reason = errorMessage(error);
    return { ok: false, message: `pattern ${JSON.stringify(pattern)} is not supported: ${reason}` };
  }
}

/** The ajv `code.regExp` engine: ajv calls it with `(pattern, flags)` and keys its pattern cache on `toString()`. */
export const safeRegExpEngine: RegExpEngine = Object.assign(
  (pattern: string): RegExpLike => {
    const result = compileSafePattern(pattern);
    if (!result.ok) throw new Error(result.message);
    return result.regExp;
  },
  { code: 'safeRegExpEngine' },
);
