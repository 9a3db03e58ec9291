import { setMaxListeners } from 'node:events';
import { Deadline, type DeadlineCause } from '../common/deadline';

export type AbortCause = DeadlineCause;

/** Thrown by `AbortScope.race` once the scope is aborted. */
export class LoopAbortedError extends Error {
  constructor(readonly abortCause: AbortCause) {
    super(abortCause === 'timeout' ? 'The time limit was reached' : 'Cancelled');
    this.name = 'LoopAbortedError';
  }
}

/**
 * One signal for the whole loop: aborts when the caller's signal does (`cancelled`) or when
 * `timeoutMs` passes (`timeout`); the first cause wins. Call `dispose` when the loop ends.
 */
export class AbortScope {
  private readonly deadline: Deadline;

  constructor(parent: AbortSignal | undefined, timeoutMs: number | undefined) {
    this.deadline = new Deadline({ parent, timeoutMs, timeoutReason: () => new LoopAbortedError('timeout') });
    // Every tool call running at once listens on this signal (its race and its own deadline) until it ends:
    // a batch of more than a few read-only calls is expected, not a leak (the listener spec guards leaks).
    setMaxListeners(Infinity, this.deadline.signal);
  }

  get signal(): AbortSignal {
    return this.deadline.signal;
  }

  get cause(): AbortCause | null {
    return this.deadline.cause;
  }

  throwIfAborted(): void {
    if (this.cause !== null) throw new LoopAbortedError(this.cause);
  }

  /** Settles like `promise`, or rejects with LoopAbortedError as soon as the scope aborts. */
  race<T>(promise: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(new LoopAbortedError(this.cause ?? 'cancelled'));
      if (this.signal.aborted) onAbort();
      else this.signal.addEventListener('abort', onAbort, { once: true });
      promise.then(
        (value) => {
          this.signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          this.signal.removeEventListener('abort', onAbort);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  dispose(): void {
    this.deadline.dispose();
  }
}
