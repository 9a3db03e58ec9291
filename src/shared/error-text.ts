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
