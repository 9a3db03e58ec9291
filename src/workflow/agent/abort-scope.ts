export type AbortCause = 'cancelled' | 'timeout';

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
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout | undefined;
  private abortCause: AbortCause | null = null;
  private readonly onParentAbort = (): void => this.abort('cancelled');

  constructor(
    private readonly parent: AbortSignal | undefined,
    timeoutMs: number | undefined,
  ) {
    if (parent?.aborted) this.abort('cancelled');
    else parent?.addEventListener('abort', this.onParentAbort, { once: true });
    if (timeoutMs !== undefined && !this.signal.aborted) {
      this.timer = setTimeout(() => this.abort('timeout'), Math.max(0, timeoutMs));
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get cause(): AbortCause | null {
    return this.abortCause;
  }

  throwIfAborted(): void {
    if (this.abortCause !== null) throw new LoopAbortedError(this.abortCause);
  }

  /** Settles like `promise`, or rejects with LoopAbortedError as soon as the scope aborts. */
  race<T>(promise: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(new LoopAbortedError(this.abortCause ?? 'cancelled'));
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
    clearTimeout(this.timer);
    this.parent?.removeEventListener('abort', this.onParentAbort);
  }

  private abort(cause: AbortCause): void {
    if (this.abortCause !== null) return;
    this.abortCause = cause;
    clearTimeout(this.timer);
    this.controller.abort(new LoopAbortedError(cause));
  }
}
