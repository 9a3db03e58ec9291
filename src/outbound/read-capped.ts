import type { Readable } from 'node:stream';
import { ToolExecutionError } from '../shared/tool-errors';

/** The body grew past the caller's limit; the socket was closed as soon as it did. */
export class ResponseTooLargeError extends ToolExecutionError {
  constructor(maxBytes: number, bytesRead: number) {
    super(`response exceeded ${maxBytes} bytes`, { metadata: { max_bytes: maxBytes, bytes_read: bytesRead } });
    this.name = 'ResponseTooLargeError';
  }
}

/**
 * Reads a response body while counting: the stream is destroyed the moment the limit is passed,
 * or when `signal` fires, so neither a huge body nor a stalled one is ever held in full.
 */
export const readCapped = async (stream: Readable, maxBytes: number, signal: AbortSignal): Promise<Buffer> => {
  const onAbort = (): void => {
    stream.destroy(new Error('aborted'));
  };
  if (signal.aborted) onAbort();
  signal.addEventListener('abort', onAbort, { once: true });
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of stream) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      bytes += buffer.length;
      if (bytes > maxBytes) {
        stream.destroy();
        throw new ResponseTooLargeError(maxBytes, bytes);
      }
      chunks.push(buffer);
    }
    return Buffer.concat(chunks);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
};
