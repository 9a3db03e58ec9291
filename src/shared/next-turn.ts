/**
 * Resolves once the event loop has turned (`setImmediate`): what the current turn set going comes first (an answer
 * written to its socket, say), then what waited for this.
 */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
