/**
 * Name and message of anything thrown. Duck-typed: errors from isolated-vm may come from another
 * realm (Jest runs tests in their own), where `instanceof Error` is false.
 */
export const errorText = (error: unknown): { name: string; message: string } => {
  if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string') {
    const name = 'name' in error && typeof error.name === 'string' ? error.name : 'Error';
    return { name, message: error.message };
  }
  return { name: 'Error', message: String(error) };
};
