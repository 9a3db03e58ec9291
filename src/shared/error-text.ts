import { isRecord } from './is-record';

/**
 * Name and message of anything thrown. Duck-typed: errors from another realm (isolated-vm, a vm context,
 * Jest's own) fail `instanceof Error`.
 */
export const errorText = (error: unknown): { name: string; message: string } => {
  if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string') {
    const name = 'name' in error && typeof error.name === 'string' ? error.name : 'Error';
    return { name, message: error.message };
  }
  return { name: 'Error', message: String(error) };
};

export interface ErrorMessageOptions {
  /**
   * Never an empty or useless text: an empty message gives the error's name, and a thrown non-error
   * object its JSON instead of `[object Object]`. For texts a model reads.
   */
  descriptive?: boolean;
}

/** The message of anything thrown, for logs and error texts. */
export const errorMessage = (error: unknown, options: ErrorMessageOptions = {}): string => {
  if (!options.descriptive) return errorText(error).message;
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string') {
    return error.message || ('name' in error ? String(error.name) : 'unknown error');
  }
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
};

/**
 * The error's message and those of its causes, outermost first: e.g. the OpenAI SDK's "Connection error." wraps
 * undici's "fetch failed", which wraps what actually happened ("getaddrinfo ENOTFOUND api.openai.com"). Causes are read
 * by shape: undici's errors may come from another realm than this module's `Error`.
 */
export function causeChainMessage(error: unknown): string {
  const messages: string[] = [];
  for (let cause: unknown = error; isRecord(cause) && messages.length < 4; cause = cause.cause) {
    // A failed connect to a name with several addresses is an AggregateError without a message of its own.
    const nested = Array.isArray(cause.errors) && isRecord(cause.errors[0]) ? cause.errors[0].message : '';
    const own = typeof cause.message === 'string' && cause.message !== '' ? cause.message : nested;
    const message = typeof own === 'string' ? own.replace(/\.+$/, '') : '';
    if (message !== '' && !messages.includes(message)) messages.push(message);
  }
  return messages.length > 0 ? messages.join(': ') : String(error);
}
