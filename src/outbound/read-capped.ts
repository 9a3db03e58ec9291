import { finished, type Readable, Transform } from 'node:stream';
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
 * Event-driven rather than `for await`: the async iterator costs more than the read on small bodies.
 */
export const readCapped = (stream: Readable, maxBytes: number, signal: AbortSignal): Promise<Buffer> =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let settled = false;
    const onAbort = (): void => {
      stream.destroy(new Error('aborted'));
    };
    const settle = (error?: Error | null): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      stream.off('data', onData);
      cleanup();
      if (error) reject(error);
      else resolve(Buffer.concat(chunks, bytes));
    };
    const onData = (chunk: Buffer | string): void => {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      bytes += buffer.length;
      if (bytes > maxBytes) {
        settle(new ResponseTooLargeError(maxBytes, bytes));
        stream.destroy();
        return;
      }
      chunks.push(buffer);
    };
    // `finished` reports the end, an error, and a close before the end (premature close) alike.
    const cleanup = finished(stream, settle);
    stream.on('data', onData);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });

const LF = 0x0a;

/**
 * A pass-through that fails with ResponseTooLargeError once more than `maxBytes` went through it. For a
 * `text/event-stream` the count starts again after each event (a blank line), so a long-lived stream lives on
 * while no single event may outgrow the limit.
 */
export const capBytes = (maxBytes: number, perEvent: boolean): Transform => {
  let bytes = 0;
  let previous = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (perEvent) {
        for (let index = 0; index < chunk.length; index += 1) {
          const byte = chunk[index];
          bytes = byte === LF && previous === LF ? 0 : bytes + 1;
          if (byte !== 0x0d) previous = byte;
        }
      } else bytes += chunk.length;
      done(bytes > maxBytes ? new ResponseTooLargeError(maxBytes, bytes) : null, chunk);
    },
  });
};
