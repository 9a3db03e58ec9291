import ivm from 'isolated-vm';
import type { ConfigProblem } from '../../tools/tool-implementations';
import { errorMessage, errorText } from '../../shared/error-text';
import { USER_CODE_FILENAME } from './isolate-runtime';

const VALIDATION_MEMORY_MB = 32;
const VALIDATION_TIMEOUT_MS = 1000;
const LOCATION = new RegExp(`\\s*\\[${USER_CODE_FILENAME.replace('.', '\\.')}:(\\d+):(\\d+)\\]$`);

/** isolated-vm appends `[tool.js:line:column]`; people read `(line 3, column 9)`. */
const describeCompileError = (error: unknown, lineCount: number): string => {
  const { name, message } = errorText(error);
  const match = LOCATION.exec(message);
  if (!match) return `${name}: ${message}`;
  const line = Number(match[1]);
  // Errors past the last line (an unclosed string or block) point into our wrapper.
  const where = line > lineCount ? 'at the end of the code' : `line ${line}, column ${match[2]}`;
  return `${name}: ${message.slice(0, match.index)} (${where})`;
};

/**
 * Syntax check at save time: compiles the body in a throwaway isolate without running it. The
 * Function-constructor pass rejects bodies that close the wrapper early (`}); (function () {`),
 * which a plain compile of the wrapped text would accept.
 */
export const validateCode = (code: string): ConfigProblem[] => {
  const isolate = new ivm.Isolate({ memoryLimit: VALIDATION_MEMORY_MB });
  try {
    try {
      isolate.compileScriptSync(`(async function (args) {\n${code}\n})`, {
        filename: USER_CODE_FILENAME,
        lineOffset: -1,
      });
    } catch (error) {
      return [{ path: '/code', message: describeCompileError(error, code.split('\n').length) }];
    }
    const context = isolate.createContextSync();
    const problem = context.evalClosureSync(
      `try { new (async function () {}).constructor('args', $0); return ''; } catch (error) { return String(error.message); }`,
      [code],
      { timeout: VALIDATION_TIMEOUT_MS },
    ) as string;
    return problem === ''
      ? []
      : [{ path: '/code', message: `code must be a single function body (${problem}); check for unbalanced braces` }];
  } catch (error) {
    return [{ path: '/code', message: `code could not be checked: ${errorMessage(error)}` }];
  } finally {
    isolate.dispose();
  }
};
